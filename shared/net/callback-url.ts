import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { classifyAddress } from '../domain/ip.js';
import { GatewayError } from '../domain/errors.js';

/**
 * The one callback-URL policy, used by every route that takes a URL and again by webhook delivery:
 * HTTPS only; no private, loopback, link-local or metadata targets, whether written as an address or
 * reached through DNS. The local stack may allow plain-HTTP loopback receivers (`allowLoopback`), which
 * is off in AWS.
 */
export interface CallbackPolicy {
  readonly allowLoopback: boolean;
}

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

const refuse = (field: string, message: string) => new GatewayError('invalid_url', message, { [field]: [message] });

function parse(raw: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse(field, 'Enter a valid URL.');
  }
  if (url.username || url.password) throw refuse(field, 'The URL must not carry credentials.');
  return url;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

function judge(url: URL, addresses: string[], policy: CallbackPolicy, field: string): void {
  const classes = addresses.map(classifyAddress);
  const allLoopback = classes.length > 0 && classes.every((c) => c === 'loopback');
  if (url.protocol === 'http:' && !(policy.allowLoopback && allLoopback)) {
    throw refuse(field, 'The URL must use HTTPS.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(field, 'The URL must use HTTPS.');
  for (const cls of classes) {
    if (cls === 'private' || (cls === 'loopback' && !policy.allowLoopback)) {
      throw refuse(field, 'The URL must not point to a private, loopback, link-local or metadata address.');
    }
  }
}

/** Checks the URL's form and any literal address, without DNS (fast, for request validation). */
export function checkCallbackUrlSyntax(raw: string, policy: CallbackPolicy, field = 'callback_url'): URL {
  const url = parse(raw, field);
  const host = hostOf(url);
  const literal = isIP(host) ? [host] : host === 'localhost' ? ['127.0.0.1'] : [];
  if (literal.length > 0) judge(url, literal, policy, field);
  else if (url.protocol !== 'https:') throw refuse(field, 'The URL must use HTTPS.');
  return url;
}

/** The form and literal checks, then every address `lookup` gives for a name (none: nothing more to judge). */
async function checkAddresses(
  raw: string,
  policy: CallbackPolicy,
  field: string,
  lookup: (host: string) => Promise<string[]>,
): Promise<{ url: URL; addresses: string[] }> {
  const url = checkCallbackUrlSyntax(raw, policy, field);
  const host = hostOf(url);
  const addresses = isIP(host) ? [host] : await lookup(host);
  if (addresses.length > 0) judge(url, addresses, policy, field);
  return { url, addresses };
}

/** Resolves the host and checks every address it resolves to (connect time: a name that does not resolve is refused). */
export function checkCallbackUrl(
  raw: string,
  policy: CallbackPolicy,
  resolve: Resolver = systemResolver,
  field = 'callback_url',
): Promise<{ url: URL; addresses: string[] }> {
  return checkAddresses(raw, policy, field, async (host) => {
    const addresses = await resolve(host).catch((): string[] => []);
    if (addresses.length === 0) throw refuse(field, `The host ${host} does not resolve.`);
    return addresses;
  });
}

/** How long registration waits for a name to resolve before taking it as not resolving yet. */
const REGISTRATION_LOOKUP_MS = 2_000;

async function resolveIfPossible(host: string, resolve: Resolver): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string[]>((done) => {
    timer = setTimeout(() => done([]), REGISTRATION_LOOKUP_MS);
  });
  try {
    return await Promise.race([resolve(host).catch(() => []), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Registration of a webhook URL: the form and any literal address are checked as always, and a name that
 * resolves is refused when any of its addresses is private, loopback, link-local or metadata. A name that does
 * not resolve (yet) is accepted: a merchant may register a URL before its DNS exists. Delivery checks again at
 * connect time (`checkCallbackUrl`), which is the real guard.
 */
export function checkRegisteredUrl(
  raw: string,
  policy: CallbackPolicy,
  resolve: Resolver = systemResolver,
  field = 'callback_url',
): Promise<{ url: URL; addresses: string[] }> {
  return checkAddresses(raw, policy, field, (host) => resolveIfPossible(host, resolve));
}
