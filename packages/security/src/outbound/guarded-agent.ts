import type { LookupAddress } from 'node:dns';
import { Agent } from 'undici';
import { blockedAddressReason } from './blocked-address';
import { OutboundBlockedError } from './outbound-errors';
import { resolveAnyName, resolvePublicName } from './public-names';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Resolves a host and refuses it if ANY of its addresses is blocked (an attacker's DNS
 * may mix public and private answers), then hands the connection exactly the addresses it
 * checked: there is no second lookup for a rebinding DNS server to answer differently.
 * Names are asked of the name servers on the event loop (resolvePublicName), off the
 * thread pool; with private addresses allowed, of the system's resolver.
 */
export function guardedLookup(allowPrivate: boolean, resolve = allowPrivate ? resolveAnyName : resolvePublicName) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, []);
      if (!allowPrivate) {
        for (const { address } of addresses) {
          const range = blockedAddressReason(address);
          if (range) return callback(new OutboundBlockedError(hostname, address, range) as NodeJS.ErrnoException, []);
        }
      }
      // Every address checked: the connection tries them in turn (an IPv6-only pod reaches a
      // dual-stack host through its AAAA), and none it was not handed.
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** How long an idle connection may be reused: well under a DNS TTL, long enough for bursts. */
const KEEP_ALIVE_MS = 4_000;

/**
 * An undici dispatcher whose every connection goes through guardedLookup. A connection is
 * reused for a few seconds: it stays bound to the address checked when it was opened, so
 * reuse cannot reach a different address, and a burst of deliveries to one endpoint no
 * longer pays a TLS handshake each (bench/: the largest CPU cost of a delivery).
 */
export function createGuardedAgent(options: { allowPrivate: boolean; connectTimeoutMs?: number }): Agent {
  return new Agent({
    connect: { lookup: guardedLookup(options.allowPrivate), timeout: options.connectTimeoutMs ?? 5_000 },
    keepAliveTimeout: KEEP_ALIVE_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MS,
  });
}
