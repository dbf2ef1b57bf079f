import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useLocation, useParams, useSearchParams } from 'react-router';
import { ErrorAlert } from '../../components/ErrorAlert';
import { RadioGroup } from '../../components/RadioGroup';
import { usePageTitle } from '../../components/usePageTitle';
import type { OutputFormat } from '../../lib/api-types';
import { BulkSection } from '../../features/bulk/components/BulkSection';
import { useCreateDocument } from '../../features/documents/api/create-document';
import { DocumentStatus } from '../../features/documents/components/DocumentStatus';
import { HistoryTable } from '../../features/documents/components/HistoryTable';
import { InputForm } from '../../features/documents/components/InputForm';
import { sampleInput, withoutBlankOptionals, type Input } from '../../features/documents/components/input-model';
import { checkInput, serverProblems, type InputProblem } from '../../features/documents/components/schema-check';
import { Tabs } from '../../features/documents/components/Tabs';
import { useTemplate } from '../../features/templates/api/get-template';
import { useTemplateSchema } from '../../features/templates/api/get-template-schema';
import { useTemplateVersions } from '../../features/templates/api/list-template-versions';
import { CallFromCode } from '../../features/templates/components/CallFromCode';
import { TemplateActions } from '../../features/templates/components/TemplateActions';
import { TemplatePreview } from '../../features/templates/components/TemplatePreview';
import { VariablesTable } from '../../features/templates/components/VariablesTable';
import { VersionsSection } from '../../features/templates/components/VersionsSection';

// CodeMirror is most of the bundle: it loads only when the JSON tab is opened.
const JsonEditor = lazy(() => import('../../features/documents/components/JsonEditor'));
// The live preview beside the form: its own chunk, so the first load does not grow.
const LivePreview = lazy(() => import('../../features/templates/components/LivePreview'));

type Mode = 'form' | 'json';
const pretty = (value: unknown) => JSON.stringify(value, null, 2);

export function TemplatePage() {
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  const arrival = useLocation().state as { uploaded?: boolean; warnings?: string[] } | null;
  const isUat = params.get('is_uat') === 'true';
  const template = useTemplate(id, isUat);
  const versions = useTemplateVersions(id, isUat);
  // "Try this version": the Form, the JSON check, Generate and the live preview use it instead of the published one.
  const [trying, setTrying] = useState<number>();
  const tried = trying === template.data?.version ? undefined : versions.data?.items.find((version) => version.version === trying);
  const schema = useTemplateSchema(id, isUat, template.data?.updated_at, tried?.version);
  const create = useCreateDocument();
  usePageTitle(template.data?.name);

  const [mode, setMode] = useState<Mode>('form');
  const [input, setInput] = useState<Input>({});
  const [jsonText, setJsonText] = useState('{}');
  const [jsonProblems, setJsonProblems] = useState<InputProblem[]>([]);
  // Form mode checks every field once Generate was pressed, and again as the author fixes them.
  const [submitted, setSubmitted] = useState(false);
  // What the API said about the last failed document's input (§9 `errors`), until the input changes.
  const [apiProblems, setApiProblems] = useState<InputProblem[]>([]);
  const [outputFormat, setOutputFormat] = useState<OutputFormat>('pdf');
  const [documentId, setDocumentId] = useState<string>();

  // The variables of the version the Form and JSON fill in: the one being tried, else the published one.
  const variables = tried?.variables ?? template.data?.variables;
  // Pre-fill every variable when the template (or its variables) arrive; keep what was typed.
  const variablesKey = JSON.stringify(variables ?? null);
  useEffect(() => {
    if (!variables) return;
    const sample = sampleInput(variables);
    setInput((previous) => {
      const merged = { ...sample };
      for (const name of Object.keys(sample)) if (name in previous && typeof previous[name] === typeof sample[name]) merged[name] = previous[name];
      setJsonText(pretty(merged));
      return merged;
    });
  }, [variablesKey]);

  const formProblems = useMemo(() => {
    if (!submitted || !variables) return [];
    const problems = checkInput(JSON.stringify(withoutBlankOptionals(input, variables)), schema.data).problems;
    // In the order of the form, top to bottom.
    const rank = (path: string) =>
      variables.findIndex((variable) => path === variable.name || path.startsWith(`${variable.name}[`) || path.startsWith(`${variable.name}.`));
    return [...problems].sort((a, b) => rank(a.path) - rank(b.path) || a.path.localeCompare(b.path, undefined, { numeric: true }));
  }, [submitted, input, variables, schema.data]);
  const fieldProblems = useMemo(
    () => Object.fromEntries([...apiProblems, ...formProblems].map((problem) => [problem.path, problem.fieldMessage])),
    [apiProblems, formProblems],
  );
  const onFailed = useCallback((errors: { path: string; message: string }[]) => setApiProblems(serverProblems(errors)), []);
  const changeInput = (next: Input) => {
    setApiProblems([]);
    setInput(next);
  };

  if (template.isPending)
    return (
      <main>
        <p role="status">Loading the template…</p>
      </main>
    );
  if (template.error || !template.data) {
    return (
      <main>
        <h1>Template</h1>
        <ErrorAlert error={template.error} />
        <p>
          <Link to="/templates">Back to the list</Link>
        </p>
      </main>
    );
  }
  const data = template.data;
  const inputVariables = variables ?? data.variables;

  const switchMode = (next: Mode) => {
    if (next === mode) return;
    if (next === 'json') setJsonText(pretty(input));
    else {
      const parsed = checkInput(jsonText, undefined);
      if (parsed.problems.length === 0) setInput(parsed.value as Input);
    }
    setMode(next);
  };

  // The form is far from the history and the versions: take the author to it.
  const toForm = () =>
    requestAnimationFrame(() => {
      const heading = document.getElementById('generate-heading');
      heading?.scrollIntoView({ block: 'start' });
      heading?.focus({ preventScroll: true });
    });
  const applyInput = (used: Record<string, unknown>) => {
    changeInput(used);
    setJsonText(pretty(used));
    toForm();
  };
  const tryVersion = (version: number | undefined) => {
    setTrying(version);
    setApiProblems([]);
    setDocumentId(undefined);
    toForm();
  };

  const generate = () => {
    const candidate = mode === 'json' ? jsonText : JSON.stringify(withoutBlankOptionals(input, inputVariables));
    const checked = checkInput(candidate, schema.data);
    setSubmitted(mode === 'form');
    if (checked.problems.length) {
      // The first field to fix gets the focus; its message is its description.
      if (mode === 'form') requestAnimationFrame(() => document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    setApiProblems([]);
    setDocumentId(undefined);
    create.mutate(
      { template_id: data.id, template_version: tried?.version, input_json: checked.value as Input, output_format: outputFormat, is_uat: data.is_uat },
      { onSuccess: (document) => setDocumentId(document.id) },
    );
  };

  return (
    <main>
      {/* Not named "Templates": the header's link is the page's one link with that word (§8). */}
      <p className="breadcrumb">
        <Link to={data.is_uat ? '/templates?is_uat=true' : '/templates'}>Back to the {data.is_uat ? 'UAT' : 'Production'} list</Link>
      </p>
      <div className="title-row">
        <h1>{data.name}</h1>
        {data.is_uat ? (
          <span className="badge badge-uat" title="This template lives in the UAT environment">
            UAT
          </span>
        ) : null}
      </div>
      <p className="hint">
        {data.format.toUpperCase()} template{data.locale ? ` · locale ${data.locale}` : ''}
        {data.corrected_tokens.length ? ` · tags renamed at upload: ${data.corrected_tokens.map((t) => `${t.from} → ${t.to}`).join(', ')}` : ''}
      </p>
      {arrival?.uploaded ? (
        <div className="notice" aria-live="polite">
          <p>Uploaded. Check the variables below, then generate a first document.</p>
          {arrival.warnings?.length ? (
            <ul>
              {arrival.warnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <TemplateActions template={data} />

      <TemplatePreview id={data.id} isUat={data.is_uat} name={data.name} />
      <VariablesTable template={data} version={tried} />
      <VersionsSection template={data} trying={tried?.version} onTry={tryVersion} />

      <section aria-labelledby="generate-heading" className="card">
        <h2 id="generate-heading" tabIndex={-1}>
          Generate a document
        </h2>
        <div aria-live="polite">
          {tried ? (
            <div className="notice trying">
              <p>
                <strong>Trying version {tried.version}</strong> ({tried.status}): the form, Generate and the live preview use it. Everything else, bulk jobs
                included, still uses the published version {data.version}.
              </p>
              <button type="button" className="secondary" onClick={() => tryVersion(undefined)}>
                Back to the published version
              </button>
            </div>
          ) : null}
        </div>
        <Tabs<Mode>
          label="Input mode"
          selected={mode}
          onSelect={switchMode}
          tabs={[
            { value: 'form', label: 'Form', panel: <InputForm variables={inputVariables} input={input} problems={fieldProblems} onChange={changeInput} /> },
            {
              value: 'json',
              label: 'JSON',
              panel: (
                <div className="stack">
                  <Suspense fallback={<p role="status">Loading the editor…</p>}>
                    <JsonEditor
                      value={jsonText}
                      schema={schema.data}
                      onChange={(text, problems) => {
                        setJsonText(text);
                        setJsonProblems(problems);
                      }}
                    />
                  </Suspense>
                  {jsonProblems.length ? (
                    <div role="alert" className="alert">
                      <strong>The input does not match the template yet:</strong>
                      <ul>
                        {jsonProblems.map((problem) => (
                          <li key={problem.message}>{problem.message}</li>
                        ))}
                      </ul>
                    </div>
                  ) : (
                    <p className="hint">The input matches the template’s schema.</p>
                  )}
                </div>
              ),
            },
          ]}
        />
        <RadioGroup<OutputFormat>
          label="Output format"
          name="output-format"
          value={outputFormat}
          onChange={setOutputFormat}
          options={[
            { value: 'pdf', label: 'PDF' },
            { value: 'docx', label: 'DOCX' },
            { value: 'both', label: 'Both' },
          ]}
        />
        <button type="button" onClick={generate} disabled={create.isPending}>
          Generate
        </button>
        {formProblems.length && mode === 'form' ? (
          <div role="alert" className="alert">
            <strong>Not sent; fix {formProblems.length === 1 ? 'this' : `these ${formProblems.length}`} first:</strong>
            <ul>
              {formProblems.map((problem) => (
                <li key={problem.path}>{problem.message}</li>
              ))}
            </ul>
          </div>
        ) : null}
        <ErrorAlert error={create.error} title="The document was not created" />
        {documentId ? <DocumentStatus documentId={documentId} isUat={data.is_uat} onFailed={onFailed} /> : null}
      </section>
      <Suspense fallback={<p className="card hint live-preview">Loading the live preview…</p>}>
        <LivePreview
          templateId={data.id}
          isUat={data.is_uat}
          templateName={data.name}
          revision={data.updated_at}
          templateVersion={tried?.version}
          inputText={mode === 'json' ? jsonText : JSON.stringify(withoutBlankOptionals(input, inputVariables))}
        />
      </Suspense>

      <HistoryTable templateId={data.id} isUat={data.is_uat} onUseInput={applyInput} />
      <BulkSection template={data} outputFormat={outputFormat} />
      <CallFromCode template={data} />
    </main>
  );
}
