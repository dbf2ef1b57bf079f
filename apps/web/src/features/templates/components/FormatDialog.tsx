import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { formatSampleDate, formatSampleNumber, type NumberFormat, type VariableRow } from './variable-rules';

/**
 * How a date or number variable is written. Date: a pattern (DD/MM/YYYY); number: a style,
 * a currency and a number of decimals. A modal <dialog>: focus stays inside, Escape cancels.
 */
export function FormatDialog({
  row,
  locale,
  saving,
  error,
  onSave,
  onClose,
}: {
  row: VariableRow;
  locale: string;
  saving: boolean;
  error: unknown;
  onSave: (format: string | NumberFormat) => void;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    return () => element?.close();
  }, []);

  const current = typeof row.format === 'object' ? row.format : undefined;
  const [pattern, setPattern] = useState(typeof row.format === 'string' ? row.format : 'YYYY-MM-DD');
  const [style, setStyle] = useState<NumberFormat['style']>(current?.style ?? 'decimal');
  const [currency, setCurrency] = useState(current?.currency ?? '');
  const [decimals, setDecimals] = useState(String(current?.maximum_fraction_digits ?? current?.minimum_fraction_digits ?? ''));
  const [problem, setProblem] = useState<string>();

  const numberFormat = (): NumberFormat | string => {
    const format: NumberFormat = { style };
    if (style === 'currency') {
      const code = currency.trim().toUpperCase();
      if (!/^[A-Z]{3}$/.test(code)) return 'Enter a currency code of three letters, such as EUR or USD';
      format.currency = code;
    }
    if (decimals.trim() !== '') {
      const digits = Number(decimals);
      if (!Number.isInteger(digits) || digits < 0 || digits > 20) return 'Enter a whole number of decimals from 0 to 20';
      format.minimum_fraction_digits = digits;
      format.maximum_fraction_digits = digits;
    }
    return format;
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (row.type === 'date') {
      if (!pattern.trim()) return setProblem('Enter a date format, such as DD/MM/YYYY');
      setProblem(undefined);
      return onSave(pattern.trim());
    }
    const format = numberFormat();
    if (typeof format === 'string') return setProblem(format);
    setProblem(undefined);
    onSave(format);
  };

  const example =
    row.type === 'date'
      ? formatSampleDate(pattern, locale)
      : formatSampleNumber(typeof numberFormat() === 'object' ? (numberFormat() as NumberFormat) : undefined, locale);

  return (
    <dialog ref={dialog} aria-labelledby={`${id}-title`} onCancel={onClose} className="dialog">
      <form onSubmit={submit} className="stack">
        <h2 id={`${id}-title`}>
          Format of <code>{row.name}</code>
        </h2>
        {row.type === 'date' ? (
          <>
            <label>
              Date format
              <input
                type="text"
                value={pattern}
                onChange={(e) => setPattern(e.target.value)}
                spellCheck={false}
                aria-describedby={`${id}-tokens`}
                aria-invalid={problem ? true : undefined}
                autoFocus
              />
            </label>
            <p id={`${id}-tokens`} className="hint">
              YYYY year, MM or M month, MMMM or MMM its name, DD or D day, dddd weekday; [text] is written as it is.
            </p>
          </>
        ) : (
          <>
            <label>
              Style
              <select value={style} onChange={(e) => setStyle(e.target.value as NumberFormat['style'])} autoFocus>
                <option value="decimal">Decimal</option>
                <option value="currency">Currency</option>
                <option value="percent">Percent</option>
              </select>
            </label>
            <label>
              Currency
              <input
                type="text"
                value={currency}
                maxLength={3}
                spellCheck={false}
                placeholder="EUR"
                aria-describedby={`${id}-currency`}
                onChange={(e) => {
                  setCurrency(e.target.value);
                  // A currency code only means something in the Currency style.
                  if (e.target.value.trim()) setStyle('currency');
                }}
              />
            </label>
            <p id={`${id}-currency`} className="hint">
              An ISO 4217 code such as EUR, for the Currency style.
            </p>
            <label>
              Decimals
              <input type="number" min={0} max={20} step={1} value={decimals} onChange={(e) => setDecimals(e.target.value)} />
            </label>
          </>
        )}
        <p className="hint" aria-live="polite">
          Example in {locale}: <strong>{example || '—'}</strong>
        </p>
        {problem ? (
          <div role="alert" className="alert">
            {problem}
          </div>
        ) : null}
        <ErrorAlert error={error} title="The format was not saved" />
        <div className="row">
          <button type="submit" disabled={saving}>
            Save
          </button>
          <button type="button" className="secondary" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
