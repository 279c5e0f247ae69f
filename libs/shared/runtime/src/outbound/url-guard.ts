import { DomainError } from '@cip/shared/contracts';
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// ---------------------------------------------------------------------------------------------------
// SSRF protection of outbound calls (webhook deliveries, authorization decisioning): urls must point at
// the public internet. Checked when a url is registered and again for every connection, since DNS may
// answer differently later (rebinding).
// ---------------------------------------------------------------------------------------------------

const MAX_URL_LENGTH = 2048;

/** Loopback, private, shared (CGNAT), link-local (cloud metadata), documentation, multicast, reserved. */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
/**
 * The IPv6 ranges, in a list of their own: a BlockList matches an IPv4 address against the IPv4-mapped
 * part of its IPv6 rules, and ::/8 (below) holds that part.
 */
const FORBIDDEN_IPV6 = new BlockList();
for (const [network, prefix] of [
  // Reserved by the IETF (RFC 4291): unspecified, loopback, and the IPv4-mapped (::ffff:0:0/96),
  // IPv4-translated (::ffff:0:0:0/96) and IPv4-compatible (::/96) forms, and the NAT64 well-known prefix
  // 64:ff9b::/96 (RFC 6052). Those four are judged by the IPv4 address they carry (see EMBEDDINGS); any
  // other address of ::/8 is refused.
  ['::', 8],
  // NAT64 local-use prefix (RFC 8215): translates to whatever the operator's network holds.
  ['64:ff9b:1::', 48],
  ['100::', 64],
  // IETF protocol assignments, Teredo (2001::/32, embeds an IPv4 server and client) among them.
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  FORBIDDEN_IPV6.addSubnet(network, prefix, 'ipv6');
}

/** The 8 groups of an IPv6 address (with an embedded dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const fill = tail === undefined ? [] : new Array(8 - left.length - right.length).fill(0);
  return [...left, ...fill, ...right];
}

const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv6 forms that carry an IPv4 address, each with the prefix that marks it (as 16-bit groups) and
 * where the IPv4 address sits. `only`: the address means its IPv4 address and nothing else (it is judged by
 * it alone, even inside the refused ::/8); otherwise it is refused when either the IPv6 address or the
 * IPv4 one it carries is.
 */
const EMBEDDINGS: { name: string; prefix: number[]; ipv4: (g: number[]) => string[]; only?: true }[] = [
  // ::ffff:a.b.c.d (RFC 4291 §2.5.5.2).
  { name: 'IPv4-mapped', prefix: [0, 0, 0, 0, 0, 0xffff], ipv4: (g) => [ipv4Of(g[6], g[7])], only: true },
  // ::ffff:0:a.b.c.d (RFC 2765 §2.1, SIIT).
  { name: 'IPv4-translated', prefix: [0, 0, 0, 0, 0xffff, 0], ipv4: (g) => [ipv4Of(g[6], g[7])], only: true },
  // ::a.b.c.d (RFC 4291 §2.5.5.1, deprecated); ::1 and :: are 0.0.0.1 and 0.0.0.0 that way: refused.
  { name: 'IPv4-compatible', prefix: [0, 0, 0, 0, 0, 0], ipv4: (g) => [ipv4Of(g[6], g[7])], only: true },
  // 64:ff9b::a.b.c.d, the NAT64 well-known prefix (RFC 6052; inside ::/8, carved out of it).
  { name: 'NAT64', prefix: [0x64, 0xff9b, 0, 0, 0, 0], ipv4: (g) => [ipv4Of(g[6], g[7])], only: true },
  // 64:ff9b:1::/48, local-use NAT64 (RFC 8215): refused as a whole; the IPv4 sits after any prefix length.
  { name: 'NAT64 local-use', prefix: [0x64, 0xff9b, 1], ipv4: (g) => [ipv4Of(g[6], g[7])] },
  // 2002:WWXX:YYZZ::/48, 6to4 (RFC 3056).
  { name: '6to4', prefix: [0x2002], ipv4: (g) => [ipv4Of(g[1], g[2])] },
  // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, Teredo (RFC 4380): the server, and the client obfuscated
  // (every bit inverted). The whole prefix is refused anyway (2001::/23).
  {
    name: 'Teredo',
    prefix: [0x2001, 0],
    ipv4: (g) => [ipv4Of(g[2], g[3]), ipv4Of(g[6] ^ 0xffff, g[7] ^ 0xffff)],
  },
];

const startsWith = (groups: number[], prefix: number[]) => prefix.every((group, i) => groups[i] === group);

/**
 * The IPv4 addresses an IPv6 address carries (IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64, 6to4,
 * Teredo), with whether they alone decide; null for an address of no such form.
 */
export function embeddedIpv4(address: string): { form: string; ipv4: string[]; only: boolean } | null {
  if (isIP(address) !== 6) return null;
  const groups = ipv6Groups(address);
  const embedding = EMBEDDINGS.find((e) => startsWith(groups, e.prefix));
  return embedding ? { form: embedding.name, ipv4: embedding.ipv4(groups), only: !!embedding.only } : null;
}

/** True for an address a webhook must never reach (see FORBIDDEN, FORBIDDEN_IPV6, EMBEDDINGS); unparsable input counts as forbidden. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIpv4(address);
  if (embedded?.ipv4.some((ipv4) => FORBIDDEN.check(ipv4, 'ipv4'))) return true;
  if (embedded?.only) return false;
  return FORBIDDEN_IPV6.check(address.split('%')[0], 'ipv6');
}

const refuse = (message: string) => new DomainError('validation_error', message, [{ field: 'url', message }]);

/**
 * Parses and normalises a webhook url: http or https, a host name, no credentials, at most 2048
 * characters. Host checks against private ranges happen in `resolveDeliveryAddress`.
 */
export function parseWebhookUrl(raw: string): URL {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL_LENGTH) {
    throw refuse(`url must be 1 to ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('url must be an absolute http(s) url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('url must use http or https');
  if (url.username || url.password) throw refuse('url must not contain credentials');
  if (!url.hostname) throw refuse('url must have a host');
  url.hash = '';
  return url;
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface AddressPolicy {
  /** Local development and tests: loopback and private addresses are allowed. */
  allowPrivate: boolean;
  resolver: Resolver;
}

/**
 * The address to connect to for `hostname`, refused (a validation error naming `url`) when it does not
 * resolve or when any of its addresses is forbidden: a host that also resolves to a private address could
 * be switched to it at any time.
 */
export async function resolveDeliveryAddress(
  hostname: string,
  policy: AddressPolicy,
): Promise<{ address: string; family: number }> {
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  let addresses: { address: string; family: number }[];
  if (isIP(literal)) {
    addresses = [{ address: literal, family: isIP(literal) }];
  } else {
    try {
      addresses = await policy.resolver(literal);
    } catch {
      throw refuse(`url host ${literal} does not resolve`);
    }
    if (addresses.length === 0) throw refuse(`url host ${literal} does not resolve`);
  }
  if (!policy.allowPrivate) {
    const forbidden = addresses.find((a) => isForbiddenAddress(a.address));
    if (forbidden) {
      throw refuse(
        `url must point to a public address; ${literal} resolves to a private or reserved one (${forbidden.address})`,
      );
    }
  }
  return addresses[0];
}
