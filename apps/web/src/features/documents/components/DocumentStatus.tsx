import { useEffect, useRef } from 'react';
import type { DocumentRecord } from '../../../lib/api-types';
import { useDocument } from '../api/get-document';
import { documentDownloadUrl } from '../api/download-url';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { formatTime } from '../../../lib/format';

/**
 * The new document's status as it changes (text in role=status; the page's one progressbar is
 * the bulk job's), then its downloads or what to fix.
 */
export function DocumentStatus({
  documentId,
  isUat,
  onFailed,
}: {
  documentId: string;
  isUat: boolean;
  /** The API's `errors` of a failed document (§9), for the form to show beside its fields. */
  onFailed?: (errors: { path: string; message: string }[]) => void;
}) {
  const document = useDocument(documentId, isUat);
  const data: DocumentRecord | undefined = document.data;
  const failedErrors = data?.status === 'failed' ? (data.errors ?? []) : undefined;
  const reported = useRef<string>(undefined);
  useEffect(() => {
    if (!failedErrors || !onFailed || reported.current === documentId) return;
    reported.current = documentId;
    onFailed(failedErrors);
  }, [failedErrors, onFailed, documentId]);
  return (
    <div className="card result">
      <p role="status" aria-live="polite">
        Status: <strong className={`status status-${data?.status ?? 'queued'}`}>{data?.status ?? 'queued'}</strong>
      </p>
      {data?.purged_at ? (
        <p>
          Purged: its files were removed by the retention policy on <time dateTime={data.purged_at}>{formatTime(data.purged_at)}</time>; generate it again.
        </p>
      ) : null}
      {data?.status === 'ready' && !data.purged_at ? (
        <p className="row">
          {data.files.includes('pdf') ? (
            <a className="button" href={documentDownloadUrl(data.id, 'pdf', isUat)} download>
              Download PDF
            </a>
          ) : null}
          {data.files.includes('docx') ? (
            <a className="button" href={documentDownloadUrl(data.id, 'docx', isUat)} download>
              Download DOCX
            </a>
          ) : null}
        </p>
      ) : null}
      {data?.status === 'failed' ? (
        <div role="alert" className="alert">
          <strong>The document failed: </strong>
          {data.errors && data.errors.length > 1 ? `${data.errors.length} problems:` : (data.error_message ?? 'no reason was given')}
          {data.errors && data.errors.length > 1 ? (
            <ul>
              {data.errors.map((error) => (
                <li key={`${error.path}|${error.message}`}>{error.message}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <ErrorAlert error={document.error} />
    </div>
  );
}
