import type { Variable, VariableType } from '../../../lib/api-types';
import { sampleRow, withMember, type Input } from './input-model';

interface FieldProps {
  label: string;
  type: VariableType | undefined;
  value: unknown;
  required: boolean;
  onChange: (value: unknown) => void;
}

/** One input per value type: date picker, number, checkbox, URL for images, text otherwise. */
function Field({ label, type, value, required, onChange }: FieldProps) {
  if (type === 'boolean') {
    return (
      <label className="check">
        <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
        {label}
      </label>
    );
  }
  const inputType = type === 'date' ? 'date' : type === 'number' ? 'number' : type === 'image' ? 'url' : 'text';
  const text = value === undefined || value === null ? '' : String(value);
  return (
    <label>
      {label}
      <input
        type={inputType}
        required={required}
        step={type === 'number' ? 'any' : undefined}
        placeholder={type === 'image' ? 'https://… or data:image/png;base64,…' : undefined}
        value={text}
        onChange={(e) => {
          if (type !== 'number') return onChange(e.target.value);
          onChange(e.target.value === '' ? '' : Number(e.target.value));
        }}
      />
    </label>
  );
}

function ListEditor({
  variable,
  rows,
  onChange,
}: {
  variable: Variable;
  rows: Record<string, unknown>[];
  onChange: (rows: Record<string, unknown>[]) => void;
}) {
  const setField = (index: number, field: string, value: unknown) => onChange(rows.map((row, i) => (i === index ? { ...row, [field]: value } : row)));
  return (
    <fieldset className="list-editor">
      <legend>{variable.name}</legend>
      {rows.length === 0 ? <p className="hint">No rows yet.</p> : null}
      {rows.map((row, index) => (
        <div key={index} className="list-row">
          {(variable.fields ?? []).map((field) => (
            <Field
              key={field}
              label={field}
              type={variable.field_types?.[field]}
              value={row[field]}
              required={false}
              onChange={(value) => setField(index, field, value)}
            />
          ))}
          <button type="button" className="secondary" onClick={() => onChange(rows.filter((_, i) => i !== index))}>
            Remove row {index + 1}
          </button>
        </div>
      ))}
      <button type="button" className="secondary" onClick={() => onChange([...rows, sampleRow(variable)])}>
        Add row
      </button>
    </fieldset>
  );
}

/** An object's members (`client.address.city`) as fields; lists inside an object are edited in JSON mode. */
function ObjectEditor({ variable, value, onChange }: { variable: Variable; value: unknown; onChange: (value: Record<string, unknown>) => void }) {
  const object = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const leaves = (variable.fields ?? []).filter((field) => !['object', 'list'].includes(variable.field_types?.[field] ?? 'text'));
  const read = (path: string[]) =>
    path.reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), object);
  return (
    <fieldset className="list-editor">
      <legend>{variable.name}</legend>
      {leaves.map((field) => (
        <Field
          key={field}
          label={`${variable.name}.${field}`}
          type={variable.field_types?.[field]}
          value={read(field.split('.'))}
          required={variable.required}
          onChange={(next) => onChange(withMember(object, field.split('.'), next))}
        />
      ))}
    </fieldset>
  );
}

/** Form mode: one field per variable, labelled by its name. */
export function InputForm({ variables, input, onChange }: { variables: Variable[]; input: Input; onChange: (input: Input) => void }) {
  if (variables.length === 0) return <p>This template has no variables: Generate renders it as it is.</p>;
  return (
    <div className="stack">
      {variables.map((variable) =>
        variable.type === 'object' ? (
          <ObjectEditor
            key={variable.name}
            variable={variable}
            value={input[variable.name]}
            onChange={(value) => onChange({ ...input, [variable.name]: value })}
          />
        ) : variable.type === 'list' ? (
          <ListEditor
            key={variable.name}
            variable={variable}
            rows={Array.isArray(input[variable.name]) ? (input[variable.name] as Record<string, unknown>[]) : []}
            onChange={(rows) => onChange({ ...input, [variable.name]: rows })}
          />
        ) : (
          <Field
            key={variable.name}
            label={variable.name}
            type={variable.type}
            value={input[variable.name]}
            required={variable.required}
            onChange={(value) => onChange({ ...input, [variable.name]: value })}
          />
        ),
      )}
    </div>
  );
}
