import { Link } from 'react-router';
import { ErrorAlert } from '../../components/ErrorAlert';
import { usePageTitle } from '../../components/usePageTitle';
import { formatTime } from '../../lib/format';
import { bulkZipUrl } from '../../features/bulk/api/get-bulk-job';
import { useBulkJobs } from '../../features/bulk/api/list-bulk-jobs';
import { useTemplates } from '../../features/templates/api/list-templates';
import { templatePath } from '../../features/templates/components/TemplatesPage';
import { EnvironmentSwitch, useEnvironment } from './environment';

/** Every bulk job of the environment, newest first, with its progress and ZIP (API.md §14). */
export function BulkJobsPage() {
  usePageTitle('Bulk jobs');
  const [isUat, setIsUat] = useEnvironment();
  const templates = useTemplates(isUat);
  const jobs = useBulkJobs(isUat);
  const names = new Map(templates.data?.items.map((t) => [t.id, t.name]));
  const items = jobs.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <main>
      <h1>Bulk jobs</h1>
      <EnvironmentSwitch isUat={isUat} onChange={setIsUat} />
      <p className="hint">Start a bulk job from a template’s page (section Bulk generation); every job of the environment is listed here.</p>
      <ErrorAlert error={templates.error} />
      <ErrorAlert error={jobs.error} />
      {jobs.isPending ? <p role="status">Loading bulk jobs…</p> : null}
      {jobs.data && items.length === 0 ? <p>No bulk jobs yet.</p> : null}
      {items.length > 0 ? (
        <div className="scroll-x" tabIndex={0} role="group" aria-labelledby="bulk-jobs-caption">
          <table className="list">
            <caption id="bulk-jobs-caption">Bulk jobs</caption>
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Template</th>
                <th scope="col">Status</th>
                <th scope="col">Rows</th>
                <th scope="col">ZIP</th>
              </tr>
            </thead>
            <tbody>
              {items.map((job) => {
                const done = job.succeeded + job.failed;
                return (
                  <tr key={job.id}>
                    <td data-label="Started">
                      <time dateTime={job.created_at}>{formatTime(job.created_at)}</time>
                    </td>
                    <td data-label="Template">
                      <Link to={templatePath(job.template_id, isUat)}>{names.get(job.template_id) ?? 'Template'}</Link>
                    </td>
                    <td data-label="Status">
                      <span className={`status status-${job.status}`}>{job.status}</span>
                    </td>
                    <td data-label="Rows">
                      {done} of {job.total_rows} rows
                      {job.failed ? <span className="error-cell"> · {job.failed} failed</span> : null}
                    </td>
                    <td data-label="ZIP">
                      {job.status === 'completed' ? (
                        <a href={bulkZipUrl(job.id, isUat)} download>
                          Download ZIP
                        </a>
                      ) : (
                        <span className="hint">{job.status === 'failed' ? 'none' : 'when done'}</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {jobs.hasNextPage ? (
        <button type="button" className="secondary" onClick={() => jobs.fetchNextPage()} disabled={jobs.isFetchingNextPage}>
          Load more
        </button>
      ) : null}
    </main>
  );
}
