import ipaddr from 'ipaddr.js';

/**
 * Public addresses that answer only from inside a cloud's own network, with the host's
 * configuration or credentials (Azure's WireServer; AWS and GCP use link-local ones).
 */
const CLOUD_HOST_ENDPOINTS = new Set(['168.63.129.16']);

/**
 * Why an address may not be reached from the service, or undefined when it may: only
 * global unicast passes. Loopback, private, link-local (cloud metadata lives there),
 * CGNAT, multicast, unspecified, unique-local and reserved ranges are refused, including
 * IPv4 addresses hidden in IPv6 forms (::ffff:127.0.0.1, 6to4, Teredo, and the deprecated
 * IPv4-compatible ::7f00:1, which ipaddr.js calls unicast).
 */
export function blockedAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const ipv6 = parsed as ipaddr.IPv6;
    if (ipv6.isIPv4MappedAddress()) return ipv4Reason(ipv6.toIPv4Address());
    if (ipv6.parts.slice(0, 6).every((part) => part === 0) && ipv6.range() === 'unicast') return 'ipv4Compatible';
    return ipv6.range() === 'unicast' ? undefined : ipv6.range();
  }
  return ipv4Reason(parsed as ipaddr.IPv4);
}

function ipv4Reason(address: ipaddr.IPv4): string | undefined {
  if (CLOUD_HOST_ENDPOINTS.has(address.toString())) return 'cloudHostEndpoint';
  const range = address.range();
  return range === 'unicast' ? undefined : range;
}
