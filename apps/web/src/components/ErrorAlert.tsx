import { ApiError } from '../lib/api-client';

/** Every error the person must read, in words, in a role="alert" element. */
export function ErrorAlert({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const details = error instanceof ApiError ? error.errors : [];
  return (
    <div role="alert" className="alert">
      {title ? <strong>{title}: </strong> : null}
      {message}
      {details.length > 0 ? (
        <ul>
          {details.map((item, index) => (
            <li key={index}>{item.message}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
