import { useId, useRef, type KeyboardEvent, type ReactNode } from 'react';

export interface Tab<T extends string> {
  value: T;
  label: string;
  panel: ReactNode;
}

/** WAI-ARIA tabs: Left/Right/Home/End move between tabs; Tab moves into the panel. */
export function Tabs<T extends string>({ label, tabs, selected, onSelect }: { label: string; tabs: Tab<T>[]; selected: T; onSelect: (value: T) => void }) {
  const id = useId();
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const last = tabs.length - 1;
    const target = { ArrowRight: index === last ? 0 : index + 1, ArrowLeft: index === 0 ? last : index - 1, Home: 0, End: last }[event.key];
    if (target === undefined) return;
    event.preventDefault();
    onSelect(tabs[target]!.value);
    buttons.current[target]?.focus();
  };
  return (
    <div className="tabs">
      <div role="tablist" aria-label={label}>
        {tabs.map((tab, index) => (
          <button
            key={tab.value}
            ref={(el) => {
              buttons.current[index] = el;
            }}
            type="button"
            role="tab"
            id={`${id}-tab-${tab.value}`}
            aria-selected={tab.value === selected}
            aria-controls={`${id}-panel-${tab.value}`}
            tabIndex={tab.value === selected ? 0 : -1}
            onClick={() => onSelect(tab.value)}
            onKeyDown={(event) => onKeyDown(event, index)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab) => (
        <div key={tab.value} role="tabpanel" id={`${id}-panel-${tab.value}`} aria-labelledby={`${id}-tab-${tab.value}`} hidden={tab.value !== selected}>
          {tab.value === selected ? tab.panel : null}
        </div>
      ))}
    </div>
  );
}
