import { useRef, useState } from 'react';
import { ErrorAlert } from './ErrorAlert';

/**
 * A file input whose form refuses to send without a file. The "Choose … first" alert goes
 * away as soon as a file is chosen, and (being an ErrorAlert) once a later action succeeds
 * anywhere in the app (API.md §14). Spread `inputProps` on the <input type="file">.
 */
export function useChosenFile(missingMessage: string) {
  const ref = useRef<HTMLInputElement>(null);
  const [missing, setMissing] = useState<Error | null>(null);
  return {
    inputProps: { ref, type: 'file' as const, onChange: () => setMissing(null) },
    /** The chosen file; without one, the alert shows and nothing is returned. */
    take(): File | undefined {
      const file = ref.current?.files?.[0];
      setMissing(file ? null : new Error(missingMessage));
      return file;
    },
    /** Empties the input (after a successful upload). */
    clear(): void {
      if (ref.current) ref.current.value = '';
    },
    alert: <ErrorAlert error={missing} />,
  };
}
