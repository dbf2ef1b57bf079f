import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { useChosenFile } from '../../../components/useChosenFile';
import type { OutputFormat, Template } from '../../../lib/api-types';
import { useCreateBulkJob } from '../api/create-bulk-job';
import { bulkZipUrl, useBulkJob } from '../api/get-bulk-job';
import { sampleSpreadsheet } from './sample-spreadsheet';

/** "{invoice_number}-{client_name}": a file-name pattern from the template's first two single-value tokens. */
function exampleFileName(template: Template): string {
  const names = template.variables.filter((v) => ['text', 'number', 'date'].includes(v.type)).map((v) => `{${v.name}}`);
  return names.slice(0, 2).join('-') || 'row-0002';
}

/** Upload a spreadsheet (header row = tokens), follow the rows, download the ZIP. */
export function BulkSection({ template, outputFormat }: { template: Template; outputFormat: OutputFormat }) {
  const chosen = useChosenFile('Choose a .csv or .xlsx file first.');
  const create = useCreateBulkJob();
  const [jobId, setJobId] = useState<string>();
  const [fileName, setFileName] = useState('');
  const job = useBulkJob(jobId, template.is_uat);

  const sampleUrl = useMemo(() => URL.createObjectURL(new Blob([sampleSpreadsheet(template.variables)], { type: 'text/csv' })), [template.variables]);
  useEffect(() => () => URL.revokeObjectURL(sampleUrl), [sampleUrl]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const file = chosen.take();
    if (!file) return;
    setJobId(undefined);
    create.mutate(
      { templateId: template.id, file, outputFormat, isUat: template.is_uat, fileName: fileName.trim() || undefined },
      { onSuccess: (created) => setJobId(created.id) },
    );
  };

  const data = job.data;
  const done = data ? data.succeeded + data.failed : 0;
  const finished = data?.status === 'completed' || data?.status === 'failed';
  return (
    <section aria-labelledby="bulk-heading" className="card">
      <h2 id="bulk-heading">Bulk generation</h2>
      <p>
        One document per spreadsheet row (.csv or .xlsx). The first row holds the token names; a list token’s cell holds a JSON array of objects. Output format
        as chosen above.
      </p>
      <p>
        <a href={sampleUrl} download={`${template.name}-sample.csv`}>
          Download sample spreadsheet
        </a>
      </p>
      <form onSubmit={submit} className="row">
        <label>
          Spreadsheet
          <input {...chosen.inputProps} accept=".csv,.xlsx" />
        </label>
        <label>
          File names
          <input
            type="text"
            value={fileName}
            placeholder={exampleFileName(template)}
            aria-describedby="bulk-file-names-hint"
            onChange={(e) => setFileName(e.target.value)}
          />
        </label>
        <button type="submit" disabled={create.isPending || (Boolean(jobId) && !finished)}>
          Start bulk job
        </button>
      </form>
      <p id="bulk-file-names-hint" className="hint">
        Optional: name each file in the ZIP from its row, with tokens in braces. Without it the files are row-0002.pdf, row-0003.pdf, …
      </p>
      {chosen.alert}
      <ErrorAlert error={create.error} title="The bulk job did not start" />
      <ErrorAlert error={job.error} />
      {data ? (
        <div className="stack">
          <label>
            Bulk progress
            <progress max={Math.max(data.total_rows, 1)} value={done} aria-valuetext={`${done} of ${data.total_rows} rows`} />
          </label>
          <p aria-live="polite">
            {done} of {data.total_rows} rows · {data.succeeded} succeeded, {data.failed} failed · {data.status}
          </p>
          {data.status === 'completed' ? (
            <p>
              <a className="button" href={bulkZipUrl(data.id, template.is_uat)} download>
                Download ZIP
              </a>
            </p>
          ) : null}
          {data.status === 'failed' ? (
            <div role="alert" className="alert">
              The bulk job failed: its ZIP could not be put together ({data.succeeded} of {data.total_rows} rows had rendered). Start it again.
            </div>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
