import { lookup as systemLookup, Resolver, type LookupAddress } from 'node:dns';

type Resolved = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

/**
 * Name servers are asked through c-ares, never the system's getaddrinfo: getaddrinfo holds
 * one of libuv's four threads until it answers, and those threads also read and write the
 * process's files, so a caller's name server that answers after seconds, asked for a few
 * names, would stall every file operation and every other lookup of the worker or gateway.
 * c-ares asks on the event loop; a lookup ends within LOOKUP_TIMEOUT_MS whatever the name
 * servers do.
 */
export const publicNameResolver = (): Resolver => new Resolver({ timeout: 2_000, tries: 2 });

/** A whole lookup, both questions and every retry, answered or failed within this. */
export const LOOKUP_TIMEOUT_MS = 5_000;

const processResolver = publicNameResolver();

/**
 * The addresses of a host a caller named, as the guard must check them: IPv4 then IPv6.
 * `localhost` is this machine whatever a name server says (RFC 6761). /etc/hosts is not read
 * (c-ares's questions go to the name servers): what it names is this machine or its
 * cluster, never a public host.
 */
export function resolvePublicName(hostname: string, callback: Resolved, resolver: Resolver = processResolver, timeoutMs = LOOKUP_TIMEOUT_MS): void {
  if (/^localhost\.?$|\.localhost\.?$/i.test(hostname)) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
  const found: { 4: LookupAddress[]; 6: LookupAddress[] } = { 4: [], 6: [] };
  let waiting = 2;
  let failure: NodeJS.ErrnoException | null = null;
  // c-ares retries each name server with doubling waits: the whole lookup has one limit (late answers are dropped).
  const timer = setTimeout(() => {
    waiting = 0;
    callback(Object.assign(new Error(`looking up ${hostname} took longer than ${timeoutMs / 1000} s`), { code: 'ETIMEOUT' }), []);
  }, timeoutMs);
  timer.unref();
  const answered = (family: 4 | 6) => (error: NodeJS.ErrnoException | null, answers: string[]) => {
    if (waiting === 0) return;
    if (error) failure ??= error;
    else found[family] = answers.map((address) => ({ address, family }));
    if (--waiting > 0) return;
    clearTimeout(timer);
    const addresses = [...found[4], ...found[6]];
    if (addresses.length > 0) callback(null, addresses);
    else callback(failure ?? Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
  };
  resolver.resolve4(hostname, answered(4));
  resolver.resolve6(hostname, answered(6));
}

/** With private addresses allowed (local testing only): the system's resolver, /etc/hosts and all. */
export function resolveAnyName(hostname: string, callback: Resolved): void {
  systemLookup(hostname, { all: true, verbatim: true }, callback);
}
