import { lookup as dnsLookup, type LookupAddress } from 'node:dns';

type Lookup = (
  hostname: string,
  options: { all: true; verbatim: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * Host lookups (getaddrinfo) running at once in a process. Each holds one of libuv's four
 * threads until the system resolver answers, and those threads also read and write files:
 * a stranger's name server that answers after seconds, asked for many names, would
 * otherwise hold them all, and every file read of the process would wait behind it.
 */
export const MAX_LOOKUPS_IN_FLIGHT = 2;
/** A lookup, waiting for its turn included, fails after this; its thread is held until the resolver answers, but nobody waits for it. */
export const LOOKUP_TIMEOUT_MS = 5_000;

interface Waiting {
  hostname: string;
  settle: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;
}

/** Runs host lookups at most `maxInFlight` at once, each within `timeoutMs`. */
export class LookupGate {
  private inFlight = 0;
  private readonly waiting: Waiting[] = [];

  constructor(
    private readonly lookup: Lookup = dnsLookup as Lookup,
    readonly maxInFlight = MAX_LOOKUPS_IN_FLIGHT,
    readonly timeoutMs = LOOKUP_TIMEOUT_MS,
  ) {}

  resolve(hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void): void {
    let done = false;
    const timer = setTimeout(() => {
      const index = this.waiting.indexOf(entry);
      if (index >= 0) this.waiting.splice(index, 1);
      entry.settle(Object.assign(new Error(`looking up ${hostname} took longer than ${this.timeoutMs / 1000} s`), { code: 'ETIMEOUT' }), []);
    }, this.timeoutMs);
    timer.unref();
    const entry: Waiting = {
      hostname,
      settle: (error, addresses) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        callback(error, addresses);
      },
    };
    this.waiting.push(entry);
    this.startNext();
  }

  private startNext(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      const entry = this.waiting.shift()!;
      this.inFlight += 1;
      this.lookup(entry.hostname, { all: true, verbatim: true }, (error, addresses) => {
        this.inFlight -= 1;
        entry.settle(error, addresses);
        this.startNext();
      });
    }
  }
}

/** The process's one gate: libuv's thread pool is the process's. */
export const processLookupGate = new LookupGate();
