import { Fragment, useState } from 'react';
import { ErrorAlert } from '../../../components/ErrorAlert';
import type { Template, TemplateVersion, VariableType } from '../../../lib/api-types';
import { useUpdateVariables } from '../api/update-variables';
import { FormatDialog } from './FormatDialog';
import { LocaleSelect } from './LocaleSelect';
import { allowedTypes, describeFormat, TYPE_LABELS, variableRows, type NumberFormat, type VariableRow } from './variable-rules';

type Change = { type?: VariableType; required?: boolean; format?: string | NumberFormat };

/**
 * Each variable (and each field of a list, as "items.price") with its type, whether it is
 * required and its format. Types and Required are saved at once; a format in its dialog.
 * While a version is tried, its variables: a draft's are edited (`?version=n`, how a change
 * is made non-breaking before it is published), a superseded one's only shown.
 */
export function VariablesTable({ template, version }: { template: Template; version?: TemplateVersion }) {
  const update = useUpdateVariables();
  // What the person chose shows at once; the server's answer replaces it when it lands.
  const [pending, setPending] = useState<Record<string, Change>>({});
  const [editing, setEditing] = useState<VariableRow>();
  const [formatError, setFormatError] = useState<unknown>();
  const save = (name: string, change: Change, onSuccess?: () => void) => {
    setPending((all) => ({ ...all, [name]: { ...all[name], ...change } }));
    update.mutate(
      { id: template.id, isUat: template.is_uat, variables: [{ name, ...change }], version: version?.version },
      {
        onSuccess,
        onError: (error) => setFormatError(error),
        onSettled: () =>
          setPending((all) => {
            const { [name]: _done, ...rest } = all;
            return rest;
          }),
      },
    );
  };
  const variables = version?.variables ?? template.variables;
  const readOnly = version?.status === 'superseded';
  const rows = variables.flatMap(variableRows);

  return (
    <section aria-labelledby="variables-heading" className="card">
      <h2 id="variables-heading">Variables panel</h2>
      {version ? (
        <p className="hint">
          {readOnly
            ? `Version ${version.version}’s variables, as you try it. It is superseded: its settings can no longer change.`
            : `Version ${version.version}’s variables, as you try it: changes here apply to this draft only.`}
        </p>
      ) : null}
      {variables.length === 0 ? <p>This template has no tags.</p> : null}
      <div className="scroll-x" tabIndex={0}>
        <table className="variables">
          <caption>Variables</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Required</th>
              <th scope="col">Format</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const type = pending[row.name]?.type ?? row.type;
              const required = variables.find((v) => v.name === row.name)?.required;
              return (
                <tr key={row.name} className={row.isField ? 'field-row' : undefined}>
                  <th scope="row">
                    {/* "items.price" may wrap at its dot on a phone, never inside a word. */}
                    <code>
                      {row.name.split('.').map((part, index) => (
                        <Fragment key={index}>
                          {index > 0 ? (
                            <>
                              <wbr />.
                            </>
                          ) : null}
                          {part}
                        </Fragment>
                      ))}
                    </code>
                  </th>
                  <td>
                    <select
                      aria-label={`Type of ${row.name}`}
                      value={type}
                      disabled={readOnly}
                      onChange={(e) => save(row.name, { type: e.target.value as VariableType })}
                    >
                      {allowedTypes(row.type, row.hasFields).map((value) => (
                        <option key={value} value={value}>
                          {TYPE_LABELS[value]}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    {row.isField ? (
                      <span className="hint">always</span>
                    ) : (
                      <input
                        type="checkbox"
                        aria-label={`Required ${row.name}`}
                        checked={pending[row.name]?.required ?? required ?? true}
                        disabled={readOnly}
                        onChange={(e) => save(row.name, { required: e.target.checked })}
                      />
                    )}
                  </td>
                  <td>
                    {type === 'date' || type === 'number' ? (
                      <div className="row tight">
                        <span>{type === row.type ? describeFormat(row, template.locale) : ''}</span>
                        <button
                          type="button"
                          className="secondary"
                          disabled={readOnly}
                          onClick={() => {
                            setFormatError(undefined);
                            setEditing({ ...row, type });
                          }}
                        >
                          Format of {row.name}
                        </button>
                      </div>
                    ) : (
                      <span className="hint">—</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {/* A live region, not role=status: the template page's one status is the document's. */}
      <p aria-live="polite" className="hint">
        {update.isPending ? 'Saving…' : update.isSuccess ? 'Saved.' : ''}
      </p>
      {editing ? null : <ErrorAlert error={update.error} title="The change was not saved" />}
      <LocaleSelect template={template} />
      {editing ? (
        <FormatDialog
          row={editing}
          locale={template.locale}
          saving={update.isPending}
          error={formatError}
          onSave={(format) => save(editing.name, { type: editing.type, format }, () => setEditing(undefined))}
          onClose={() => setEditing(undefined)}
        />
      ) : null}
    </section>
  );
}
