import { useState } from 'react';
import { Link } from 'react-router';
import { ErrorAlert } from '../../components/ErrorAlert';
import { usePageTitle } from '../../components/usePageTitle';
import type { DocumentRecord, DocumentStatus } from '../../lib/api-types';
import { formatTime } from '../../lib/format';
import { documentDownloadUrl } from '../../features/documents/api/download-url';
import { useDocuments } from '../../features/documents/api/list-documents';
import { useTemplates } from '../../features/templates/api/list-templates';
import { templatePath } from '../../features/templates/components/TemplatesPage';
import { EnvironmentSwitch, useEnvironment } from './environment';

const STATUSES: DocumentStatus[] = ['queued', 'rendering', 'ready', 'failed'];

const downloadable = (document: DocumentRecord) => document.status === 'ready' && !document.purged_at;

/** Every document of the environment, across templates, newest first (API.md §14). */
export function DocumentsPage() {
  usePageTitle('Documents');
  const [isUat, setIsUat] = useEnvironment();
  const [status, setStatus] = useState<DocumentStatus | ''>('');
  const [templateId, setTemplateId] = useState('');
  const templates = useTemplates(isUat);
  const documents = useDocuments({ isUat, status: status || undefined, templateId: templateId || undefined });
  const names = new Map(templates.data?.items.map((t) => [t.id, t.name]));
  const items = documents.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <main>
      <h1>Documents</h1>
      <EnvironmentSwitch
        isUat={isUat}
        onChange={(next) => {
          setTemplateId('');
          setIsUat(next);
        }}
      />
      <div className="row filters">
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value as DocumentStatus | '')}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Template
          <select value={templateId} onChange={(e) => setTemplateId(e.target.value)}>
            <option value="">Every template</option>
            {templates.data?.items.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorAlert error={templates.error} />
      <ErrorAlert error={documents.error} />
      {documents.isPending ? <p role="status">Loading documents…</p> : null}
      {documents.data && items.length === 0 ? <p>No documents match.</p> : null}
      {items.length > 0 ? (
        <div className="scroll-x" tabIndex={0} role="group" aria-labelledby="documents-caption">
          <table className="list">
            <caption id="documents-caption">Documents</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Template</th>
                <th scope="col">Status</th>
                <th scope="col">Error</th>
                <th scope="col">Downloads</th>
              </tr>
            </thead>
            <tbody>
              {items.map((document) => (
                <tr key={document.id}>
                  <td data-label="Time">
                    <time dateTime={document.created_at}>{formatTime(document.created_at)}</time>
                  </td>
                  <td data-label="Template">
                    {document.template_id ? (
                      <Link to={templatePath(document.template_id, isUat)}>{names.get(document.template_id) ?? 'Template'}</Link>
                    ) : (
                      `Merge of ${document.merged_from?.length ?? 0} documents`
                    )}
                  </td>
                  <td data-label="Status">
                    {document.purged_at ? (
                      <span className="status status-purged">purged</span>
                    ) : (
                      <span className={`status status-${document.status}`}>{document.status}</span>
                    )}
                  </td>
                  <td data-label="Error" className="error-cell">
                    {document.error_message ?? ''}
                  </td>
                  <td data-label="Downloads">
                    <div className="row tight">
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
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {documents.hasNextPage ? (
        <button type="button" className="secondary" onClick={() => documents.fetchNextPage()} disabled={documents.isFetchingNextPage}>
          Load more
        </button>
      ) : null}
      {documents.isFetchingNextPage ? <p role="status">Loading more…</p> : null}
    </main>
  );
}
