import { useRef, useState } from 'react';

/** A value shown once: read-only, selectable, with Copy. */
export function SecretField({ label, value, note }: { label: string; value: string; note: string }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string>();
  const copy = async () => {
    field.current?.select();
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('Copy was refused by the browser: the text is selected, press Ctrl+C.');
    }
  };
  return (
    <div className="secret card">
      <div className="row">
        <label className="grow">
          {label}
          <input ref={field} type="text" readOnly value={value} onFocus={(e) => e.target.select()} spellCheck={false} />
        </label>
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p className="hint">{note}</p>
      {copied ? <p role="status">{copied}</p> : null}
    </div>
  );
}
