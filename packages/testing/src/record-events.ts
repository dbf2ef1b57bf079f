/**
 * Records what a component reports through its `onEvent` option, and awaits the reports
 * themselves: a test waits for the event, however long a loaded machine takes to produce
 * it, instead of polling with a limit of its own (the test's timeout still bounds it).
 */
export function recordEvents<E>(): {
  events: E[];
  onEvent: (event: E) => void;
  /** The next event from now on that matches. */
  next: (match: (event: E) => boolean) => Promise<E>;
  /** Resolves once `holds()` is true of what has been recorded: at once, or after the reported event that makes it so (an entry a test pushes into `events` itself wakes nothing). */
  until: (holds: () => boolean) => Promise<void>;
} {
  const events: E[] = [];
  const listeners = new Set<(event: E) => void>();
  const next = (match: (event: E) => boolean) =>
    new Promise<E>((resolve) => {
      const listener = (event: E) => {
        if (!match(event)) return;
        listeners.delete(listener);
        resolve(event);
      };
      listeners.add(listener);
    });
  return {
    events,
    onEvent: (event) => {
      events.push(event);
      for (const listener of [...listeners]) listener(event);
    },
    next,
    until: async (holds) => {
      if (!holds()) await next(holds);
    },
  };
}
