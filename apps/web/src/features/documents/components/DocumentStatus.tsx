import type { DocumentRecord } from '../../../lib/api-types';
import { useDocument } from '../api/get-document';
import { documentDownloadUrl } from '../api/download-url';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { formatTime } from '../../../lib/format';

/**
 * The new document's status as it changes (text in role=status; the page's one progressbar is
 * the bulk job's), then its downloads or what to fix.
 */
export function DocumentStatus({ documentId, isUat }: { documentId: string; isUat: boolean }) {
  const document = useDocument(documentId, isUat);
  const data: DocumentRecord | undefined = document.data;
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
          {data.error_message ?? 'no reason was given'}
        </div>
      ) : null}
      <ErrorAlert error={document.error} />
    </div>
  );
}
