import { type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { RadioGroup } from '../../../components/RadioGroup';
import { usePageTitle } from '../../../components/usePageTitle';
import { useChosenFile } from '../../../components/useChosenFile';
import { formatTime } from '../../../lib/format';
import { useTemplates } from '../api/list-templates';
import { useUploadTemplate } from '../api/upload-template';

export function templatePath(id: string, isUat: boolean): string {
  return `/templates/${id}${isUat ? '?is_uat=true' : ''}`;
}

export function TemplatesPage() {
  usePageTitle('Templates');
  const [params, setParams] = useSearchParams();
  const isUat = params.get('is_uat') === 'true';
  const templates = useTemplates(isUat);
  const upload = useUploadTemplate();
  const chosen = useChosenFile('Choose a .docx or .html file first.');
  const navigate = useNavigate();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const file = chosen.take();
    if (!file) return;
    upload.mutate(
      { file, isUat },
      {
        // The author's next step is on the new template's page: its variables and a first document.
        onSuccess: (created) => {
          const warnings = (created as { warnings?: string[] }).warnings ?? [];
          void navigate(templatePath(created.id, created.is_uat), { state: { uploaded: true, warnings } });
        },
      },
    );
  };

  return (
    <main>
      <h1>Templates</h1>
      <RadioGroup
        label="Environment"
        name="environment"
        value={isUat ? 'uat' : 'production'}
        options={[
          { value: 'production', label: 'Production' },
          { value: 'uat', label: 'UAT' },
        ]}
        onChange={(value) => {
          upload.reset();
          setParams(value === 'uat' ? { is_uat: 'true' } : {});
        }}
      />

      <section aria-labelledby="upload-heading" className="card">
        <h2 id="upload-heading">Upload a template</h2>
        <form onSubmit={submit} className="row">
          <label>
            Template file
            <input {...chosen.inputProps} name="file" accept=".docx,.html,.htm" aria-describedby="upload-hint" />
          </label>
          <button type="submit" disabled={upload.isPending}>
            {upload.isPending ? 'Uploading…' : 'Upload'}
          </button>
        </form>
        <p id="upload-hint" className="hint">
          A .docx or .html file with tags such as {'{client_name}'}, {'{#items}…{/items}'} and {'{%logo}'}. It goes to {isUat ? 'UAT' : 'Production'}.
        </p>
        {chosen.alert}
        <ErrorAlert error={upload.error} title="The template was not uploaded" />
      </section>

      <section aria-labelledby="list-heading">
        {/* Not "… templates": the page's one heading containing that word is the h1 (§8 names it). */}
        <h2 id="list-heading">In {isUat ? 'UAT' : 'Production'}</h2>
        <ErrorAlert error={templates.error} />
        {templates.isPending ? <p role="status">Loading templates…</p> : null}
        {templates.data && templates.data.items.length === 0 ? <p>No templates in this environment yet. Upload one above.</p> : null}
        <ul className="template-list">
          {templates.data?.items.map((template) => (
            <li key={template.id}>
              <Link to={templatePath(template.id, template.is_uat)}>{template.name}</Link>
              <span className="hint">
                {' '}
                {template.format.toUpperCase()} · {template.variables.length} variable{template.variables.length === 1 ? '' : 's'} · uploaded{' '}
                {formatTime(template.created_at)}
              </span>
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}
