import type { Template, Variable, VariableType } from '../../../lib/api-types';

/** A 1 × 1 grey PNG: a sample image that renders anywhere, with no network. */
const SAMPLE_IMAGE = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGM4c+YMAATMAmU5mmUsAAAAAElFTkSuQmCC';

function sampleOf(type: VariableType | undefined, name: string): unknown {
  switch (type) {
    case 'date':
      return '2026-12-24';
    case 'number':
      return 1234.5;
    case 'boolean':
      return true;
    case 'image':
      return SAMPLE_IMAGE;
    case 'list':
      return [];
    default:
      return `Sample ${name.replace(/_/g, ' ')}`;
  }
}

/** A nested list field ("lines.qty") goes inside its parent's sample row. */
function sampleRow(variable: Variable): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const field of variable.fields ?? []) {
    const path = field.split('.');
    let target = row;
    for (const part of path.slice(0, -1)) {
      const inner = (Array.isArray(target[part]) ? target[part] : (target[part] = [{}])) as Record<string, unknown>[];
      target = inner[0]!;
    }
    const leaf = path[path.length - 1]!;
    if (variable.fields!.some((other) => other.startsWith(`${field}.`))) target[leaf] ??= [{}];
    else target[leaf] = sampleOf(variable.field_types?.[field], leaf);
  }
  return row;
}

/** A body every variable of the template accepts, with values that show what each type wants. */
export function sampleBody(template: Template): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const variable of template.variables) {
    input[variable.name] = variable.type === 'list' ? [sampleRow(variable)] : sampleOf(variable.type, variable.name);
  }
  return { template_id: template.id, input_json: input, output_format: 'pdf', ...(template.is_uat ? { is_uat: true } : {}) };
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function curlSnippet(template: Template, origin: string): string {
  return [
    `curl -X POST ${shellQuote(`${origin}/api/v1/documents/`)} \\`,
    `  -H "X-API-Key: $DOCGEN_API_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(JSON.stringify(sampleBody(template), null, 2))}`,
  ].join('\n');
}

export function clientSnippet(template: Template, origin: string): string {
  const body = JSON.stringify(sampleBody(template), null, 2);
  return [
    `import { writeFile } from 'node:fs/promises';`,
    `import { createClient } from '@docgen/client';`,
    ``,
    `const docgen = createClient({ baseUrl: ${JSON.stringify(origin)}, apiKey: process.env.DOCGEN_API_KEY! });`,
    `const { document, download } = await docgen.generateAndWait(${body});`,
    'await writeFile(`${document.id}.pdf`, await download());',
  ].join('\n');
}
