import { useRef, type ReactNode } from 'react';
import { ApiError } from '../lib/api-client';
import { useSuccessCount } from '../lib/later-success';

/**
 * The lines an alert lists under its headline: each message once, and none that only
 * repeats the headline (a 422 whose one error is its detail said everything twice).
 */
export function alertLines(headline: string, messages: string[]): string[] {
  const seen = new Set<string>();
  const normal = (text: string) =>
    text
      .trim()
      .replace(/[.\s]+$/, '')
      .toLowerCase();
  const head = normal(headline);
  return messages.filter((message) => {
    const line = normal(message);
    if (!line || seen.has(line) || head.includes(line)) return false;
    seen.add(line);
    return true;
  });
}

/**
 * Every error the person must read, in words, in a role="alert" element. It goes away by
 * itself once a later action succeeds anywhere in the app (lib/later-success.ts): an old
 * failure next to a newer success only misleads.
 */
export function ErrorAlert({
  error,
  title,
  children,
}: {
  error: unknown;
  title?: string;
  /** What the person can do about it (a button), after the messages. */
  children?: ReactNode;
}) {
  const successes = useSuccessCount();
  // The success count when this error was first shown.
  const seenAt = useRef<{ error: unknown; at: number }>({ error: undefined, at: 0 });
  if (seenAt.current.error !== error) seenAt.current = { error, at: successes };
  if (!error || successes > seenAt.current.at) return null;
  const message = error instanceof Error ? error.message : String(error);
  const details = alertLines(message, error instanceof ApiError ? error.errors.map((item) => item.message) : []);
  return (
    <div role="alert" className="alert">
      {title ? <strong>{title}: </strong> : null}
      {message}
      {details.length > 0 ? (
        <ul>
          {details.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
      {children}
    </div>
  );
}
