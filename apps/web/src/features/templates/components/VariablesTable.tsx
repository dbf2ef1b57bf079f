import { useState } from 'react';
import { ErrorAlert } from '../../../components/ErrorAlert';
import type { Template, VariableType } from '../../../lib/api-types';
import { useUpdateVariables } from '../api/update-variables';

const TYPES: { value: VariableType; label: string }[] = [
  { value: 'text', label: 'Text' },
  { value: 'date', label: 'Date' },
  { value: 'number', label: 'Number' },
  { value: 'boolean', label: 'Boolean' },
  { value: 'list', label: 'List' },
  { value: 'image', label: 'Image' },
  { value: 'object', label: 'Object' },
];

/** Each change is saved at once with PATCH .../variables. */
export function VariablesTable({ template }: { template: Template }) {
  const update = useUpdateVariables();
  // What the person chose shows at once; the server's answer replaces it when it lands.
  const [pending, setPending] = useState<Record<string, { type?: VariableType; required?: boolean }>>({});
  const save = (name: string, change: { type?: VariableType; required?: boolean }) => {
    setPending((all) => ({ ...all, [name]: { ...all[name], ...change } }));
    update.mutate(
      { id: template.id, isUat: template.is_uat, variables: [{ name, ...change }] },
      {
        onSettled: () =>
          setPending((all) => {
            const { [name]: _done, ...rest } = all;
            return rest;
          }),
      },
    );
  };

  return (
    <section aria-labelledby="variables-heading" className="card">
      <h2 id="variables-heading">Variables panel</h2>
      {template.variables.length === 0 ? <p>This template has no tags.</p> : null}
      <div className="scroll-x" tabIndex={0}>
        <table>
          <caption>Variables</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Required</th>
              <th scope="col">Fields</th>
            </tr>
          </thead>
          <tbody>
            {template.variables.map((variable) => (
              <tr key={variable.name}>
                <th scope="row">
                  <code>{variable.name}</code>
                </th>
                <td>
                  <select
                    aria-label={`Type of ${variable.name}`}
                    value={pending[variable.name]?.type ?? variable.type}
                    onChange={(e) => save(variable.name, { type: e.target.value as VariableType })}
                  >
                    {TYPES.map((type) => (
                      <option key={type.value} value={type.value}>
                        {type.label}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Required ${variable.name}`}
                    checked={pending[variable.name]?.required ?? variable.required}
                    onChange={(e) => save(variable.name, { required: e.target.checked })}
                  />
                </td>
                <td>{variable.fields?.length ? variable.fields.join(', ') : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {/* A live region, not role=status: the template page's one status is the document's. */}
      <p aria-live="polite" className="hint">
        {update.isPending ? 'Saving…' : update.isSuccess ? 'Saved.' : ''}
      </p>
      <ErrorAlert error={update.error} title="The change was not saved" />
    </section>
  );
}
