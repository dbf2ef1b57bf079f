import { useSyncExternalStore } from 'react';

/**
 * How many actions (mutations) have succeeded since the page loaded. ErrorAlert hides an
 * error once this grows past the value it had when the error appeared (API.md §14: an
 * alert goes away when a later action succeeds).
 */
let successes = 0;
const listeners = new Set<() => void>();

export function noteSuccess(): void {
  successes += 1;
  for (const listener of listeners) listener();
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

export function useSuccessCount(): number {
  return useSyncExternalStore(subscribe, () => successes);
}
