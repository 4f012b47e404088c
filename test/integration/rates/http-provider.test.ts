import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jest } from '@jest/globals';
import { FallbackRateProvider } from '../../../shared/rates/fallback.js';
import { HttpRateProvider } from '../../../shared/rates/http.js';
import { RateSourceError } from '../../../shared/rates/port.js';

/**
 * The market-data adapter against RECORDED `simple/price` answers (fixtures/) served by a local HTTP server
 * on 127.0.0.1:0: exact prices, the cross rates for EUR and GBP, an error status, a timeout, and the fallback.
 */
const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
type Behaviour = 'primary' | 'fallback' | 'error' | 'hang' | 'garbage';
const behaviours = new Map<string, Behaviour>();
const requests: URL[] = [];
let server: Server;
let base: string;
const hanging: ServerResponse[] = [];

async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', base);
  requests.push(url);
  const behaviour = behaviours.get(url.pathname.split('/')[1] ?? '') ?? 'error';
  if (behaviour === 'hang') {
    hanging.push(res);
    return;
  }
  if (behaviour === 'error') {
    res.writeHead(429, { 'content-type': 'application/json' }).end('{"status":{"error_code":429,"error_message":"You\'ve exceeded the Rate Limit."}}');
    return;
  }
  if (behaviour === 'garbage') {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
    return;
  }
  const file = behaviour === 'primary' ? 'coingecko-simple-price.json' : 'fallback-simple-price.json';
  res.writeHead(200, { 'content-type': 'application/json' }).end(await readFile(join(fixtures, file), 'utf8'));
}

beforeAll(async () => {
  server = createServer((req, res) => void serve(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  behaviours.set('primary', 'primary').set('fallback', 'fallback').set('error', 'error').set('hang', 'hang').set('garbage', 'garbage');
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const provider = (path: Behaviour, timeoutMs = 2_000) => new HttpRateProvider({ baseUrl: `${base}/${path}/api/v3`, timeoutMs, name: path });

describe('HTTP market data (recorded simple/price answers)', () => {
  it('asks simple/price for the assets and reads prices exactly', async () => {
    const snapshot = await provider('primary').fetchSnapshot(['USDT', 'ETH', 'MATIC'], { now: new Date('2030-01-01T00:00:00Z') });
    const url = requests.at(-1);
    expect(url?.pathname).toBe('/primary/api/v3/simple/price');
    expect(url?.searchParams.get('ids')?.split(',').sort()).toEqual(['bitcoin', 'ethereum', 'matic-network', 'tether']);
    expect(url?.searchParams.get('vs_currencies')).toBe('usd,eur,gbp');
    expect(snapshot.assets.USDT).toEqual({ usd: '1.0002310041', volume24h: '42121466123.27011', marketCap: '104331288446.6421' });
    expect(snapshot.assets.ETH?.usd).toBe('3421.0738237151835');
    expect(snapshot.assets.BTC).toBeUndefined();
    // EUR in USD from the bitcoin cross rate: 67187.3394812207 / 61850.20931884
    expect(snapshot.fiat.EUR).toBe('1.086291222312079926');
    expect(snapshot.fiat.GBP).toBe('1.268863356407871537');
    expect(snapshot.source).toBe('primary');
  });

  it('fails cleanly on an error status, a non-JSON body and a timeout', async () => {
    await expect(provider('error').fetchSnapshot(['USDT'])).rejects.toThrow(/answered 429/);
    await expect(provider('garbage').fetchSnapshot(['USDT'])).rejects.toThrow(/not JSON/);
    const slow = provider('hang', 150).fetchSnapshot(['USDT']);
    await expect(slow).rejects.toBeInstanceOf(RateSourceError);
    await expect(slow).rejects.toThrow(/no answer within 150 ms/);
  });

  it('falls back to the second source when the first times out, and fills what the first lacks', async () => {
    const log = jest.fn<(line: string) => void>();
    const timedOut = await new FallbackRateProvider([provider('hang', 150), provider('fallback')], log).fetchSnapshot(['USDT', 'ETH']);
    expect(timedOut.source).toBe('fallback');
    expect(timedOut.assets.USDT?.usd).toBe('0.9999');
    expect(log).toHaveBeenCalledTimes(1);
    expect(log.mock.calls[0]?.[0]).toContain('hang');

    const partial = await new FallbackRateProvider([provider('fallback'), provider('primary')], log).fetchSnapshot(['USDT', 'DAI']);
    expect(partial.assets.USDT?.usd).toBe('0.9999');
    expect(partial.assets.DAI?.usd).toBe('1.0001450263');
    expect(partial.source).toBe('fallback+primary');
  });

  it('fails when every source fails', async () => {
    const error = await new FallbackRateProvider([provider('error'), provider('hang', 100)], () => undefined).fetchSnapshot(['USDT']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateSourceError);
    expect(String(error)).toMatch(/every source failed/);
  });
});
