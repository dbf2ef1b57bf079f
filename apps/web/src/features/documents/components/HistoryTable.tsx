import { Fragment, useState } from 'react';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { formatTime } from '../../../lib/format';
import type { DocumentRecord, DocumentStatus } from '../../../lib/api-types';
import { documentDownloadUrl } from '../api/download-url';
import { useTemplateDocuments } from '../api/list-template-documents';

/** Ready and not purged: retention removes a document's files (its download is then 410), the record stays. */
const downloadable = (document: DocumentRecord) => document.status === 'ready' && !document.purged_at;

/** Retention removes the input with the files: a purged document has none to show or reuse. */
const hasInput = (document: DocumentRecord) => Boolean(document.input_json) && !document.purged_at;

const STATUSES: DocumentStatus[] = ['queued', 'rendering', 'ready', 'failed'];

/** The template's documents, newest first, a page at a time, with their input, downloads and "Use this input". */
export function HistoryTable({ templateId, isUat, onUseInput }: { templateId: string; isUat: boolean; onUseInput: (input: Record<string, unknown>) => void }) {
  const [status, setStatus] = useState<DocumentStatus | ''>('');
  const history = useTemplateDocuments(templateId, isUat, status || undefined);
  const [open, setOpen] = useState<string | null>(null);
  const items: DocumentRecord[] = history.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section aria-labelledby="history-heading" className="card">
      <h2 id="history-heading">History</h2>
      <label className="history-filter">
        Status
        <select value={status} onChange={(e) => setStatus(e.target.value as DocumentStatus | '')}>
          <option value="">All</option>
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </label>
      <ErrorAlert error={history.error} />
      {history.data && items.length === 0 ? <p>{status ? `No ${status} documents.` : 'No documents yet. Generate one above.'}</p> : null}
      {items.length > 0 ? (
        <div className="scroll-x" tabIndex={0}>
          <table className="history">
            <caption>History</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Status</th>
                <th scope="col">Version</th>
                <th scope="col">Error</th>
                <th scope="col">Input</th>
                <th scope="col">Downloads</th>
              </tr>
            </thead>
            <tbody>
              {items.map((document) => (
                <Fragment key={document.id}>
                  <tr>
                    <td>
                      <time dateTime={document.created_at}>{formatTime(document.created_at)}</time>
                    </td>
                    <td>
                      {document.purged_at ? (
                        <span className="status status-purged">purged</span>
                      ) : (
                        <span className={`status status-${document.status}`}>{document.status}</span>
                      )}
                    </td>
                    <td>{document.template_version ?? '—'}</td>
                    <td className="error-cell">{document.error_message ?? ''}</td>
                    <td>
                      <div className="row tight">
                        <button
                          type="button"
                          className="secondary"
                          aria-expanded={open === document.id}
                          aria-controls={`input-${document.id}`}
                          disabled={!hasInput(document)}
                          onClick={() => setOpen(open === document.id ? null : document.id)}
                        >
                          View input
                        </button>
                        <button
                          type="button"
                          className="secondary"
                          disabled={!hasInput(document)}
                          onClick={() => hasInput(document) && onUseInput(document.input_json!)}
                        >
                          Use this input
                        </button>
                      </div>
                    </td>
                    <td>
                      <div className="row tight">
                        {document.purged_at ? (
                          <span>
                            Files removed <time dateTime={document.purged_at}>{formatTime(document.purged_at)}</time>
                          </span>
                        ) : null}
                        {downloadable(document) && document.files.includes('pdf') ? (
                          <a href={documentDownloadUrl(document.id, 'pdf', isUat)} download>
                            PDF
                          </a>
                        ) : null}
                        {downloadable(document) && document.files.includes('docx') ? (
                          <a href={documentDownloadUrl(document.id, 'docx', isUat)} download>
                            DOCX
                          </a>
                        ) : null}
                      </div>
                    </td>
                  </tr>
                  {open === document.id ? (
                    <tr id={`input-${document.id}`}>
                      <td colSpan={6}>
                        <pre className="input-json" tabIndex={0} aria-label={`Input of the document from ${formatTime(document.created_at)}`}>
                          {JSON.stringify(document.input_json, null, 2)}
                        </pre>
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {history.hasNextPage ? (
        <button type="button" className="secondary" disabled={history.isFetchingNextPage} onClick={() => void history.fetchNextPage()}>
          Load more
        </button>
      ) : null}
      {history.isFetchingNextPage ? <p aria-live="polite">Loading more…</p> : null}
    </section>
  );
}
