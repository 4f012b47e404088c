import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { checkoutPage } from '../functions/checkout/page.js';
import { serveCheckout } from '../functions/checkout/serve.js';
import { startStack } from '../infra/local/stack.js';
import { checkoutRuntime } from '../shared/runtime/checkout.js';
import { meterCapacity } from '../shared/store/client.js';
import { clientAuthFrom, issueToken } from '../shared/usecases/auth/issue-token.js';
import { readCheckout } from '../shared/usecases/checkout/read-checkout.js';
import { qrDataUrl } from '../shared/usecases/qr.js';
import { createTenant } from '../shared/usecases/tenants/create-tenant.js';
import { configureTenant } from '../shared/usecases/tenants/manage-tenants.js';
import { tenantsRuntime } from '../shared/runtime/tenants.js';
import { authRuntime } from '../shared/runtime/auth.js';
import { load, type LoadResult } from './load.js';
import { percentiles } from './payment-lifecycle.js';

/**
 * The hosted checkout of one real payment (made with `POST /payments/` through the local HTTP server):
 * 1. the page, `GET <checkout_url>`: median and p99 of sequential requests through the local HTTP server beside a
 *    bare Node HTTP server answering the identical bytes and headers, both timed by fetch from this process; and
 *    the parts of one page alone, in process: the view's table reads (`readCheckout`: the cached id lookup and one
 *    BatchGetItem on DynamoDB Local), the QR code (`qrDataUrl`), the HTML (`checkoutPage`) and the whole handler
 *    (`serveCheckout`, all three), so that what is left of the HTTP median is the local HTTP server and fetch;
 * 2. the status endpoint, `GET <checkout_url>/status`, req/s under autocannon beside the bare server answering its
 *    identical JSON, and beside its table reads issued directly, 10 at a time;
 * 3. the page's size, plain and gzipped.
 * No chain is started: the forwarder factory and the token contract are fixed addresses from the environment (as
 * in test/integration/checkout), which changes nothing the page does. The per-address limit is raised to its
 * maximum (100,000 a minute): all load comes from 127.0.0.1.
 */
export interface CheckoutBench {
  readonly page: {
    readonly gateway: Timing;
    readonly bare: Timing;
    /** In-process medians, µs: table reads, QR code, HTML, QR + HTML together, and the whole handler. */
    readonly storeUs: number;
    readonly qrUs: number;
    readonly renderUs: number;
    readonly qrRenderUs: number;
    readonly handlerUs: number;
    /** Table calls per page request through the HTTP server (the checkout id's lookup is cached). */
    readonly tableCalls: Record<string, number>;
    readonly bytes: number;
    readonly gzipBytes: number;
    readonly qrBytes: number;
  };
  readonly status: {
    readonly gateway: LoadResult;
    readonly bare: LoadResult;
    readonly bytes: number;
    /** The status request's table reads (`readCheckout`) issued directly, 10 at a time. */
    readonly rawStorePerSecond: number;
  };
}

/** Milliseconds, client side. */
export interface Timing {
  readonly medianMs: number;
  readonly p99Ms: number;
}

const WARM_UP = 20;
const SAMPLES = 200;
const IN_PROCESS_RUNS = 500;
const FIXED_ENV = {
  CHECKOUT_REQUESTS_PER_MINUTE: '100000',
  EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:9/' }),
  FORWARDER_FACTORIES: JSON.stringify({ ETH: '0x1111111111111111111111111111111111111111' }),
  TOKEN_CONTRACTS: JSON.stringify({ USDTERC20: '0x2222222222222222222222222222222222222222' }),
};

/** `runs` sequential calls after `warmUp` discarded ones; the durations in ms. */
async function timed(runs: number, warmUp: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmUp; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return ms;
}

/** Median and p99 of durations in ms. */
const timing = (ms: readonly number[]): Timing => {
  const { p50, p99 } = percentiles(ms);
  return { medianMs: p50, p99Ms: p99 };
};

/** GET and read the whole body, as a browser would; anything but 200 stops the run. */
async function getPage(url: string): Promise<void> {
  const res = await fetch(url);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
}

/** `readCheckout` of one id, 10 at a time for `seconds`: the table side of a status request, without HTTP or QR code. */
async function rawStore(checkoutId: string, runtime: ReturnType<typeof checkoutRuntime>, seconds: number): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      await readCheckout(checkoutId, runtime);
      done++;
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  return done / seconds;
}

/** The fields of an API Gateway event serveCheckout reads, for a GET of `path`. */
function pageEvent(path: string): APIGatewayProxyEventV2 {
  return {
    rawPath: path,
    headers: { 'accept-language': 'en' },
    requestContext: { http: { method: 'GET', sourceIp: '127.0.0.1' }, requestId: 'bench' },
  } as unknown as APIGatewayProxyEventV2;
}

/** The headers of a real answer, for the bare server to send the same (less what node:http sets itself). */
function replayable(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((v, k) => {
    if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)) out[k] = v;
  });
  return out;
}

export async function benchCheckout(seconds: number): Promise<CheckoutBench> {
  const previous = Object.fromEntries(Object.keys(FIXED_ENV).map((k) => [k, process.env[k]]));
  // Before the stack starts: the checkout Lambda reads its limit when first loaded.
  Object.assign(process.env, FIXED_ENV);
  const stack = await startStack({
    dataDir: null,
    logLevel: 'silent',
    ports: { http: 0, dynamodb: 0, sqs: 0, kms: 0 },
    parts: { anvil: false, contracts: false, pollers: false, tron: false, solana: false },
  });
  // One bare server, answering the captured page or status answer by path.
  const fixed = new Map<string, { headers: Record<string, string>; body: Buffer }>();
  const bare = createServer((req, res) => {
    const answer = fixed.get(req.url ?? '');
    if (!answer) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, answer.headers);
    res.end(answer.body);
  });
  try {
    const made = await createTenant({ name: 'Bench Coffee Roasters' }, tenantsRuntime());
    await configureTenant({ tenant_id: made.tenant.id, requests_per_hour: 100_000_000 }, tenantsRuntime());
    const auth = clientAuthFrom(undefined, { client_id: made.clientId, client_secret: made.clientSecret });
    const { access_token: token } = await issueToken({ grant_type: 'client_credentials' }, auth, new Date(), authRuntime());
    const created = await fetch(`${stack.apiUrl}/payments/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ amount: '25', currency: 'USDTERC20', order_description: 'Two flat whites and a croissant', order_id: 'A-1017' }),
    });
    const payment = (await created.json()) as { checkout_url?: string };
    if (created.status !== 201 || !payment.checkout_url) throw new Error(`POST /payments/ answered ${created.status}: ${JSON.stringify(payment)}`);
    // This stack's server: after other benches in the same process, the payments handler (imported once, configured
    // at import) still names the first stack's base URL in its links; the path is what counts.
    const pageUrl = new URL(new URL(payment.checkout_url).pathname, stack.apiUrl ?? payment.checkout_url).href;
    const statusUrl = `${pageUrl}/status`;
    const checkoutId = new URL(pageUrl).pathname.split('/')[2] ?? '';

    // The identical bytes and headers, from one real answer of each.
    for (const url of [pageUrl, statusUrl]) {
      const res = await fetch(url);
      if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
      fixed.set(new URL(url).pathname, { headers: replayable(res.headers), body: Buffer.from(await res.arrayBuffer()) });
    }
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const bareOrigin = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    const barePage = `${bareOrigin}${new URL(pageUrl).pathname}`;
    const bareStatus = `${bareOrigin}${new URL(statusUrl).pathname}`;
    const html = fixed.get(new URL(pageUrl).pathname)?.body ?? Buffer.alloc(0);
    const json = fixed.get(new URL(statusUrl).pathname)?.body ?? Buffer.alloc(0);

    // 1. The page, one request at a time; then its parts in process (the same calls serve.ts makes).
    const gatewayMs = await timed(SAMPLES, WARM_UP, () => getPage(pageUrl));
    const bareMs = await timed(SAMPLES, WARM_UP, () => getPage(barePage));
    const runtime = checkoutRuntime();
    const view = await readCheckout(checkoutId, runtime);
    if (!view.paymentUri) throw new Error('the payment has no payment URI: no QR code to measure');
    const uri = view.paymentUri;
    const qr = await qrDataUrl(uri);
    const render = () => checkoutPage({ view, locale: 'en', statusUrl: `/checkout/${checkoutId}/status`, qr, now: new Date() });
    const median = (ms: readonly number[]) => percentiles(ms).p50 * 1000;
    const storeUs = median(await timed(IN_PROCESS_RUNS, WARM_UP, () => readCheckout(checkoutId, runtime)));
    const qrUs = median(await timed(IN_PROCESS_RUNS, WARM_UP, () => qrDataUrl(uri)));
    const renderUs = median(await timed(IN_PROCESS_RUNS, WARM_UP, async () => render()));
    const qrRenderUs = median(
      await timed(IN_PROCESS_RUNS, WARM_UP, async () =>
        checkoutPage({ view, locale: 'en', statusUrl: `/checkout/${checkoutId}/status`, qr: await qrDataUrl(uri), now: new Date() }),
      ),
    );
    const event = pageEvent(new URL(pageUrl).pathname);
    const handlerUs = median(await timed(IN_PROCESS_RUNS, WARM_UP, () => serveCheckout(event, runtime, new Date())));
    // Table calls of 20 page requests through the HTTP server, after the timings (metering adds to each call).
    const meter = meterCapacity();
    for (let i = 0; i < 20; i++) await getPage(pageUrl);
    const tableCalls = Object.fromEntries(Object.entries(meter.totals().byCommand).map(([name, c]) => [name, c.calls / 20]));
    meter.stop();

    // 2. The status endpoint under load, warmed first like the other HTTP figures.
    await load({ url: statusUrl, seconds: 2 });
    await load({ url: bareStatus, seconds: 2 });
    const gateway = await load({ url: statusUrl, seconds });
    const bareResult = await load({ url: bareStatus, seconds });
    const rawStorePerSecond = await rawStore(checkoutId, runtime, seconds);

    return {
      page: {
        gateway: timing(gatewayMs),
        bare: timing(bareMs),
        storeUs,
        qrUs,
        renderUs,
        qrRenderUs,
        handlerUs,
        tableCalls,
        // 3. Sizes. The QR code's SVG path follows the deposit address (a new one each run): it moves by some
        // hundred bytes between runs, the rest of the page does not.
        bytes: html.length,
        gzipBytes: gzipSync(html).length,
        qrBytes: Buffer.byteLength(qr),
      },
      status: { gateway, bare: bareResult, bytes: json.length, rawStorePerSecond },
    };
  } finally {
    bare.close();
    await stack.stop();
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
