/**
 * IP address classification and CIDR matching, pure. Used by the tenant allow-list and by the callback-URL
 * policy (no private, loopback, link-local or metadata targets).
 */

export type IpVersion = 4 | 6;

export function parseIpv4(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^(0|[1-9]\d{0,2})$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : null;
}

/** Parses an IPv6 address (with `::` and an optional embedded IPv4 tail) into 16 bytes. */
export function parseIpv6(text: string): number[] | null {
  let input = text.replace(/^\[|\]$/g, '').split('%')[0] ?? '';
  let tail: number[] = [];
  const v4 = input.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    const bytes = parseIpv4(v4[2] ?? '');
    if (!bytes) return null;
    tail = bytes;
    input = `${v4[1]}0:0`;
  }
  const halves = input.split('::');
  if (halves.length > 2) return null;
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const fill = 8 - head.length - rest.length;
  if (halves.length === 1 ? head.length !== 8 : fill < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...rest];
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  const bytes = all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

export function parseIp(text: string): { version: IpVersion; bytes: number[] } | null {
  const v4 = parseIpv4(text);
  if (v4) return { version: 4, bytes: v4 };
  const v6 = parseIpv6(text);
  return v6 ? { version: 6, bytes: v6 } : null;
}

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d) as its IPv4 bytes; any other address unchanged. */
function unmap(ip: { version: IpVersion; bytes: number[] }): { version: IpVersion; bytes: number[] } {
  const b = ip.bytes;
  if (ip.version === 6 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) {
    return { version: 4, bytes: b.slice(12) };
  }
  return ip;
}

function inPrefix(bytes: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if (((bytes[byte] ?? 0) & mask) !== ((prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}

/** True when `address` lies in `cidr` (`10.0.0.0/8`, `2001:db8::/32`, or a single address). */
export function cidrContains(cidr: string, address: string): boolean {
  const [base, bitsText] = cidr.split('/');
  const net = parseIp(base ?? '');
  const ip = parseIp(address);
  if (!net || !ip) return false;
  const a = unmap(ip);
  const n = unmap(net);
  if (a.version !== n.version) return false;
  const max = a.version === 4 ? 32 : 128;
  const bits = bitsText === undefined ? max : Number(bitsText);
  if (!Number.isInteger(bits) || bits < 0 || bits > max) return false;
  return inPrefix(a.bytes, n.bytes, bits);
}

export function isValidIpOrCidr(text: string): boolean {
  const [base, bits] = text.split('/');
  const ip = parseIp(base ?? '');
  if (!ip) return false;
  if (bits === undefined) return true;
  const max = ip.version === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

const BLOCKED_V4 = [
  '0.0.0.0/8', // "this" network
  '10.0.0.0/8', // private
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, includes the 169.254.169.254 metadata service
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, broadcast
];
const BLOCKED_V6 = [
  '::/128', // unspecified
  '::1/128', // loopback
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'ff00::/8', // multicast
  'fd00:ec2::254/128', // EC2 metadata over IPv6 (inside fc00::/7, listed for clarity)
  '64:ff9b::/96', // NAT64 can reach IPv4 private space
];

export type AddressClass = 'public' | 'loopback' | 'private';

/** An IPv4-compatible IPv6 address (`::a.b.c.d`, e.g. `::a9fe:a9fe`; deprecated, but routed by some stacks) as its IPv4 bytes. */
function uncompat(ip: { version: IpVersion; bytes: number[] }): { version: IpVersion; bytes: number[] } {
  const b = ip.bytes;
  if (ip.version === 6 && b.slice(0, 12).every((x) => x === 0) && !(b.slice(12, 15).every((x) => x === 0) && (b[15] ?? 0) <= 1)) {
    return { version: 4, bytes: b.slice(12) };
  }
  return ip;
}

/**
 * Classifies an address for the callback-URL policy. IPv4-mapped (`::ffff:a.b.c.d`) and IPv4-compatible
 * (`::a.b.c.d`) IPv6 are judged as their IPv4 address; `::` and `::1` stay IPv6.
 */
export function classifyAddress(address: string): AddressClass {
  const parsed = parseIp(address);
  if (!parsed) return 'private';
  const ip = uncompat(unmap(parsed));
  const text = ip.version === 4 ? ip.bytes.join('.') : address;
  if (ip.version === 4 && cidrContains('127.0.0.0/8', text)) return 'loopback';
  if (ip.version === 6 && cidrContains('::1/128', text)) return 'loopback';
  const blocked = ip.version === 4 ? BLOCKED_V4 : BLOCKED_V6;
  return blocked.some((c) => cidrContains(c, text)) ? 'private' : 'public';
}
