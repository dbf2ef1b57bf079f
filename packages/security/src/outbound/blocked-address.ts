import ipaddr from 'ipaddr.js';

/**
 * Why an address may not be reached from the service, or undefined when it may: only
 * global unicast passes. Loopback, private, link-local (cloud metadata lives there),
 * CGNAT, multicast, unspecified, unique-local and reserved ranges are refused, including
 * IPv4 addresses hidden in IPv6 forms (::ffff:127.0.0.1, 6to4, Teredo).
 */
export function blockedAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return range === 'unicast' ? undefined : range;
}
