import { lookup as dnsLookup } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { DELIVERY_TIMEOUT_MS, RESPONSE_EXCERPT_CHARS } from '../domain/webhooks.js';
import { checkCallbackUrl } from '../net/callback-url.js';
import type { CallbackPolicy, Resolver } from '../net/callback-url.js';
import type { WebhookAnswer, WebhookSender } from '../usecases/webhooks/ports.js';

/**
 * Posts one webhook. The callback-URL policy (shared/net/callback-url.ts) runs again here: on the URL before
 * connecting, and on the DNS answers AT CONNECT TIME through the socket's `lookup` (so a name that resolved to a
 * public address at registration and to 169.254.169.254 now is refused; IPv4-mapped IPv6 included, as the
 * policy classifies them). A non-2xx answer, a refused target, a dropped connection or no answer within the
 * request's `timeoutMs` (default 10 s; the first lane waits less) is a failure; the last says `timedOut`.
 */
export interface SenderOptions {
  readonly policy: CallbackPolicy;
  readonly timeoutMs?: number;
  /** Name resolution (tests give a fake resolver); default the system resolver. */
  readonly resolve?: Resolver;
}

const systemResolve: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses.map((a) => a.address)))),
  );

const familyOf = (address: string): 4 | 6 => (address.includes(':') ? 6 : 4);

/** A `lookup` for net.connect that resolves, then applies the callback policy to every answer. */
export function guardedLookup(url: string, policy: CallbackPolicy, resolve: Resolver = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    void (async () => {
      const addresses = await resolve(hostname);
      // Same classification as at registration, on the answers this connection will use.
      await checkCallbackUrl(url, policy, async () => addresses);
      return addresses;
    })().then(
      (addresses) => {
        if (options.all) {
          (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(
            null,
            addresses.map((address) => ({ address, family: familyOf(address) })),
          );
          return;
        }
        const wanted = options.family === 6 || options.family === 4 ? options.family : undefined;
        const address = addresses.find((a) => wanted === undefined || familyOf(a) === wanted) ?? addresses[0] ?? '';
        callback(null, address, familyOf(address));
      },
      (error: unknown) => callback(error instanceof Error ? Object.assign(error, { code: 'EREFUSED_TARGET' }) : new Error(String(error)), '', 4),
    );
  };
}

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 64 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 64 });

export function createHttpSender(options: SenderOptions): WebhookSender {
  return async (request) => {
    const timeoutMs = request.timeoutMs ?? options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
    let url: URL;
    try {
      ({ url } = await checkCallbackUrl(request.url, options.policy, options.resolve ?? systemResolve));
    } catch (error) {
      return { statusCode: null, latencyMs: elapsed(), excerpt: '', error: `refused: ${(error as Error).message}` };
    }
    const https = url.protocol === 'https:';
    const body = Buffer.from(request.body, 'utf8');
    const requestOptions: RequestOptions = {
      method: 'POST',
      agent: https ? httpsAgent : httpAgent,
      lookup: guardedLookup(request.url, options.policy, options.resolve),
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
        'User-Agent': 'payment-gateway-webhooks/1',
        ...request.headers,
      },
    };
    return new Promise<WebhookAnswer>((resolve) => {
      let settled = false;
      const finish = (answer: Omit<WebhookAnswer, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...answer, latencyMs: elapsed() });
      };
      const onResponse = (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_EXCERPT_CHARS * 4) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () =>
          finish({ statusCode: res.statusCode ?? null, excerpt: Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT_CHARS), error: null }),
        );
        res.on('error', (error) => finish({ statusCode: res.statusCode ?? null, excerpt: '', error: error.message }));
      };
      const req = (https ? httpsRequest : httpRequest)(url, requestOptions, onResponse);
      const timer = setTimeout(() => {
        finish({ statusCode: null, excerpt: '', error: `timeout after ${timeoutMs} ms`, timedOut: true });
        req.destroy(new Error('timeout'));
      }, timeoutMs);
      req.on('error', (error) => finish({ statusCode: null, excerpt: '', error: error.message }));
      req.end(body);
    });
  };
}
