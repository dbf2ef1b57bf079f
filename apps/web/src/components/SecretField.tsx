import { useId, useRef, useState } from 'react';

/**
 * A value shown once: read-only, selected on focus, with a Copy button (API.md §14: every
 * one-time secret has one). Two secrets on one page each have their own "Copy", inside the
 * `.secret` box of its field; the button is described by the field's name.
 */
export function SecretField({ label, value, note, copyable = true }: { label: string; value: string; note: string; copyable?: boolean }) {
  const labelId = useId();
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
          <span id={labelId}>{label}</span>
          <input ref={field} type="text" readOnly value={value} onFocus={(e) => e.target.select()} spellCheck={false} />
        </label>
        {copyable ? (
          <button type="button" onClick={copy} aria-describedby={labelId}>
            Copy
          </button>
        ) : null}
      </div>
      <p className="hint">{note}</p>
      {copied ? <p role="status">{copied}</p> : null}
    </div>
  );
}
