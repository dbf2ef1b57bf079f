import { useEffect, useId, useState } from 'react';

interface Option<T extends string> {
  value: T;
  label: string;
}

/** A named radio group (role radiogroup, named by its legend); arrow keys move within it. */
export function RadioGroup<T extends string>({
  label,
  name,
  options,
  value,
  onChange,
}: {
  label: string;
  name: string;
  options: Option<T>[];
  value: T;
  onChange: (value: T) => void;
}) {
  const id = useId();
  // Shown at once even when `onChange` starts a router transition that lands later.
  const [shown, setShown] = useState(value);
  useEffect(() => setShown(value), [value]);
  return (
    <fieldset role="radiogroup" aria-labelledby={id} className="radios">
      <legend id={id}>{label}</legend>
      {options.map((option) => (
        <label key={option.value}>
          <input
            type="radio"
            name={name}
            value={option.value}
            checked={shown === option.value}
            onChange={() => {
              setShown(option.value);
              onChange(option.value);
            }}
          />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}
