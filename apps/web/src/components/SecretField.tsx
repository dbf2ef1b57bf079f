import { useRef, useState } from 'react';

/**
 * A value shown once: read-only, selected on focus. Only one per page gets a Copy button
 * (`copyable`), so "Copy" always names one control.
 */
export function SecretField({ label, value, note, copyable = false }: { label: string; value: string; note: string; copyable?: boolean }) {
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
        {copyable ? (
          <button type="button" onClick={copy}>
            Copy
          </button>
        ) : null}
      </div>
      <p className="hint">{note}</p>
      {copied ? <p role="status">{copied}</p> : null}
    </div>
  );
}
