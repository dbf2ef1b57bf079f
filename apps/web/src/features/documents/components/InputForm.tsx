import { useId } from 'react';
import type { Variable, VariableType } from '../../../lib/api-types';
import { sampleRow, withMember, type Input } from './input-model';

/** Problems by field path ("client_name", "items[0].price"), in plain words. */
export type FieldProblems = Record<string, string>;

interface FieldProps {
  label: string;
  type: VariableType | undefined;
  value: unknown;
  required: boolean;
  problem: string | undefined;
  onChange: (value: unknown) => void;
}

/**
 * One input per value type: date picker, number, checkbox, URL for images, text otherwise.
 * A problem is shown under the field and is its accessible description (aria-invalid).
 * The required mark is outside the label and aria-hidden; `required` announces it.
 */
function Field({ label, type, value, required, problem, onChange }: FieldProps) {
  const errorId = useId();
  const inputId = useId();
  const described = problem ? { 'aria-invalid': true as const, 'aria-describedby': errorId } : {};
  const error = problem ? (
    <span id={errorId} className="field-error">
      {problem}
    </span>
  ) : null;
  if (type === 'boolean') {
    return (
      <div className="field">
        <label className="check">
          <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} {...described} />
          {label}
        </label>
        {error}
      </div>
    );
  }
  const inputType = type === 'date' ? 'date' : type === 'number' ? 'number' : type === 'image' ? 'url' : 'text';
  const text = value === undefined || value === null ? '' : String(value);
  return (
    <div className="field">
      {/* The mark stays outside the label: the field's name is the variable's name, nothing more. */}
      <div className="field-label">
        <label htmlFor={inputId}>{label}</label>
        {required ? (
          <span aria-hidden="true" className="required-mark">
            *
          </span>
        ) : null}
      </div>
      <input
        id={inputId}
        type={inputType}
        required={required}
        step={type === 'number' ? 'any' : undefined}
        placeholder={type === 'image' ? 'https://… or data:image/png;base64,…' : undefined}
        value={text}
        onChange={(e) => {
          if (type !== 'number') return onChange(e.target.value);
          onChange(e.target.value === '' ? '' : Number(e.target.value));
        }}
        {...described}
      />
      {error}
    </div>
  );
}

function ListEditor({
  variable,
  rows,
  problems,
  onChange,
}: {
  variable: Variable;
  rows: Record<string, unknown>[];
  problems: FieldProblems;
  onChange: (rows: Record<string, unknown>[]) => void;
}) {
  const setField = (index: number, field: string, value: unknown) => onChange(rows.map((row, i) => (i === index ? { ...row, [field]: value } : row)));
  const own = problems[variable.name];
  const ownId = useId();
  return (
    <fieldset className="list-editor" aria-describedby={own ? ownId : undefined}>
      <legend>
        {variable.name}
        {variable.required ? (
          <span aria-hidden="true" className="required-mark">
            *
          </span>
        ) : null}
      </legend>
      {own ? (
        <p id={ownId} className="field-error">
          {own}
        </p>
      ) : null}
      {rows.length === 0 ? <p className="hint">No rows yet.</p> : null}
      {rows.map((row, index) => (
        <div key={index} className="list-row">
          {(variable.fields ?? []).map((field) => (
            <Field
              key={field}
              label={field}
              type={variable.field_types?.[field]}
              value={row[field]}
              required
              problem={problems[`${variable.name}[${index}].${field}`]}
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
function ObjectEditor({
  variable,
  value,
  problems,
  onChange,
}: {
  variable: Variable;
  value: unknown;
  problems: FieldProblems;
  onChange: (value: Record<string, unknown>) => void;
}) {
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
          problem={problems[`${variable.name}.${field}`]}
          onChange={(next) => onChange(withMember(object, field.split('.'), next))}
        />
      ))}
    </fieldset>
  );
}

/** Form mode: one field per variable, labelled by its name; required ones marked with *. */
export function InputForm({
  variables,
  input,
  problems = {},
  onChange,
}: {
  variables: Variable[];
  input: Input;
  problems?: FieldProblems;
  onChange: (input: Input) => void;
}) {
  if (variables.length === 0) return <p>This template has no variables: Generate renders it as it is.</p>;
  return (
    <div className="stack">
      {variables.some((variable) => variable.required) ? (
        <p className="hint">
          <span aria-hidden="true" className="required-mark">
            *
          </span>{' '}
          required
        </p>
      ) : null}
      {variables.map((variable) =>
        variable.type === 'object' ? (
          <ObjectEditor
            key={variable.name}
            variable={variable}
            value={input[variable.name]}
            problems={problems}
            onChange={(value) => onChange({ ...input, [variable.name]: value })}
          />
        ) : variable.type === 'list' ? (
          <ListEditor
            key={variable.name}
            variable={variable}
            rows={Array.isArray(input[variable.name]) ? (input[variable.name] as Record<string, unknown>[]) : []}
            problems={problems}
            onChange={(rows) => onChange({ ...input, [variable.name]: rows })}
          />
        ) : (
          <Field
            key={variable.name}
            label={variable.name}
            type={variable.type}
            value={input[variable.name]}
            required={variable.required}
            problem={problems[variable.name]}
            onChange={(value) => onChange({ ...input, [variable.name]: value })}
          />
        ),
      )}
    </div>
  );
}
