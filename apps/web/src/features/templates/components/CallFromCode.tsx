import { useId, useState } from 'react';
import type { Template } from '../../../lib/api-types';
import { clientSnippet, curlSnippet } from './code-snippets';
import { copyText } from './copy-text';

function Snippet({ title, code }: { title: string; code: string }) {
  const id = useId();
  const [copied, setCopied] = useState('');
  return (
    <figure className="snippet" aria-labelledby={id}>
      <div className="row tight snippet-head">
        <figcaption id={id}>{title}</figcaption>
        <button type="button" className="secondary" aria-describedby={id} onClick={async () => setCopied(await copyText(code))}>
          Copy
        </button>
        <span aria-live="polite" className="hint">
          {copied}
        </span>
      </div>
      <pre tabIndex={0} aria-label={title}>
        <code>{code}</code>
      </pre>
    </figure>
  );
}

/** A curl command and a @docgen/client snippet for this template, with a sample body from its variables. */
export function CallFromCode({ template }: { template: Template }) {
  const origin = window.location.origin;
  return (
    <section aria-labelledby="code-heading" className="card">
      <h2 id="code-heading">Call it from code</h2>
      <p className="hint">
        Put an API key (Developer settings, admins) in <code>DOCGEN_API_KEY</code>. The sample values show what each variable takes; every operation is
        described at <a href="/docs">/docs</a>.
      </p>
      <Snippet title="curl" code={curlSnippet(template, origin)} />
      <Snippet title="@docgen/client (Node)" code={clientSnippet(template, origin)} />
    </section>
  );
}
