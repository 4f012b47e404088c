import { existsSync } from 'node:fs';
import type { Browser, HTTPResponse, Page } from 'puppeteer-core';
import { devPay, localChainsOf } from '../../../infra/local/dev/dev-pay.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { expirePayments } from '../../../shared/usecases/payments/expire.js';
import { launchBrowser, recordRequests, saveScreenshot } from '../../support/browser.js';
import {
  baseUnits,
  erc20TransferUri,
  fromBaseUnits,
  isPng,
  pageState,
  scaleOf,
  shownAmount,
  shownQr,
  valueOf,
  waitForState,
} from '../../support/checkout-page.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import { buildContractsOutOfProcess } from '../chain/contracts-build.js';
import { putFixedRates, tenantWithToken } from '../payments/support.js';
import { bearerApi } from '../../support/http-client.js';

/**
 * The hosted checkout page in a real Chromium, against the local stack over HTTP: anvil chains mining a block a
 * second, the chain scanner and the other workers running, payments created through the API and paid on chain
 * with `dev pay`. Every wait is on the page's own state (its script polls the status endpoint every 3 s), with
 * a generous deadline; nothing asserts how long anything took.
 */
const SETUP_TIMEOUT = 300_000;
const CHAIN_WAIT = 90_000;
const MERCHANT = 'Acme Books';
const SUCCESS_URL = 'http://127.0.0.1:9/thanks';
/** USDT has 6 decimals on Polygon and on Ethereum. */
const USDT_DECIMALS = 6;

let stack: TestStack;
let browser: Browser;
let merchant: { tenantId: string; bearer: string };
let origin: string;

interface Payment {
  transaction_id: string;
  address: string;
  amount_crypto: string;
  checkout_url: string;
  status: string;
}

const api = bearerApi(
  () => stack.apiUrl,
  () => merchant.bearer,
);

async function newPayment(currency: string, extra: Record<string, unknown> = {}): Promise<Payment> {
  const res = await api('POST', '/payments/', { amount: '25', currency, ...extra });
  expect(res.status).toBe(201);
  return res.body as unknown as Payment;
}

/** The deployed test token of a network (stack.json), and the network's chain id. */
function token(network: 'POLYGON' | 'ETH'): { contract: string; chainId: number } {
  const contract = stack.stackJson.contracts.networks?.[network]?.tokens.USDT;
  if (!contract) throw new Error(`no USDT test token on ${network}`);
  return { contract, chainId: network === 'POLYGON' ? 137 : 1 };
}

async function open(url: string): Promise<{ page: Page; response: HTTPResponse }> {
  const page = await browser.newPage();
  const response = await page.goto(url, { waitUntil: 'load' });
  if (!response) throw new Error(`no response for ${url}`);
  return { page, response };
}

/** Writes the page at a phone's and a desktop's width and checks both files are PNGs. */
async function screenshots(page: Page, name: string): Promise<void> {
  for (const width of [360, 1280] as const) {
    const path = await saveScreenshot(page, name, width);
    expect([path, existsSync(path) && isPng(path)]).toEqual([path, true]);
    // Nothing wider than the screen: no sideways scrolling on a phone.
    expect([name, width, await page.evaluate('document.documentElement.scrollWidth')]).toEqual([name, width, width]);
    // The whole address is in view, wrapped if need be (a customer compares its start and its end): nothing scrolls inside the field.
    const field = await page.$('#address');
    if (field && (await field.isVisible())) {
      expect([name, width, await field.evaluate((el) => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight)]).toEqual([name, width, true]);
    }
  }
}

const isVisible = async (page: Page, selector: string): Promise<boolean> => {
  const el = await page.$(selector);
  return el ? el.isVisible() : false;
};

beforeAll(async () => {
  await buildContractsOutOfProcess();
  // Every part but TRON and Solana, with the stack's default interval mining (a block a second).
  stack = await startTestStack({ anvil: true, contracts: true, pollers: true, http: true });
  origin = new URL(stack.apiUrl).origin;
  await putFixedRates();
  merchant = await tenantWithToken(MERCHANT);
  browser = await launchBrowser();
}, SETUP_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, SETUP_TIMEOUT);

describe('a waiting payment, then paid in full (one page, never reloaded)', () => {
  let payment: Payment;
  let page: Page;
  let expectedUri: string;

  beforeAll(async () => {
    payment = await newPayment('USDTPOLYGON', { order_description: 'Two paperbacks', success_url: SUCCESS_URL });
    ({ page } = await open(payment.checkout_url));
    const { contract, chainId } = token('POLYGON');
    expectedUri = erc20TransferUri(contract, chainId, payment.address, baseUnits(payment.amount_crypto, USDT_DECIMALS));
  }, SETUP_TIMEOUT);

  afterAll(async () => {
    await page?.close();
  });

  it('shows the address, the exact amount, the merchant, the order and the network', async () => {
    expect(payment.checkout_url).toMatch(new RegExp(`^${origin}/checkout/[A-Za-z0-9_-]{22}$`));
    expect(await pageState(page)).toBe('waiting');
    expect(await valueOf(page, 'address')).toBe(payment.address);
    expect(await valueOf(page, 'amount')).toBe(payment.amount_crypto);
    expect(await page.$eval('.merchant', (el) => el.textContent)).toBe(MERCHANT);
    expect(await page.title()).toBe(`Pay ${MERCHANT}`);
    expect(await valueOf(page, 'title')).toBe('Two paperbacks');
    expect(await page.$eval('.asset', (el) => el.textContent)).toBe('USDT on Polygon PoS (ERC-20)');
    expect(await valueOf(page, 'status')).toBe('Waiting for your payment');
    expect(await isVisible(page, '#pay')).toBe(true);
    // The copy buttons are the script's: shown once it ran.
    expect(await page.$$eval('button[data-copy]:not([hidden])', (els) => els.map((el) => el.getAttribute('data-copy')))).toEqual(['amount', 'address']);
    // Nothing received yet; the success link only once paid.
    expect(await isVisible(page, '#sums')).toBe(false);
    expect(await page.$('#success-link')).toBeNull();
    await screenshots(page, 'checkout-waiting');
  });

  it('shows a QR code that decodes to the EIP-681 transfer of the amount, and the wallet link carries the same URI', async () => {
    expect(await shownQr(page)).toBe(expectedUri);
    expect(await page.$eval('#wallet-link', (el) => el.getAttribute('href'))).toBe(expectedUri);
  });

  it('counts down', async () => {
    const first = Number(await page.$eval('#countdown', (el) => el.getAttribute('data-seconds')));
    expect(first).toBeGreaterThan(0);
    expect(await valueOf(page, 'countdown')).toMatch(/^\d+:\d\d(:\d\d)?$/);
    await page.waitForFunction(`document.getElementById('countdown').getAttribute('data-seconds') !== ${JSON.stringify(String(first))}`, { timeout: 30_000 });
    const next = Number(await page.$eval('#countdown', (el) => el.getAttribute('data-seconds')));
    expect(next).toBeLessThan(first);
  });

  it(
    'moves to paid on its own when the amount arrives on chain, and links back to the merchant',
    async () => {
      await page.evaluate('window.__marker = 1');
      const navigations = await page.evaluate("performance.getEntriesByType('navigation').length");
      await devPay(payment.transaction_id, undefined, localChainsOf(stack.stackJson));
      await waitForState(page, 'paid', CHAIN_WAIT);
      expect(await page.evaluate('window.__marker')).toBe(1);
      expect(await page.evaluate("performance.getEntriesByType('navigation').length")).toBe(navigations);
      expect(await valueOf(page, 'status')).toBe('Paid. Thank you!');
      expect(await page.$eval('#success-link', (el) => el.getAttribute('href'))).toBe(SUCCESS_URL);
      expect(await valueOf(page, 'success-link')).toBe(`Back to ${MERCHANT}`);
      expect(await isVisible(page, '#success-link')).toBe(true);
      expect(await isVisible(page, '#pay')).toBe(false);
      expect(await isVisible(page, '#timer')).toBe(false);
      expect(await valueOf(page, 'received')).toBe(`${shownAmount(payment.amount_crypto)} USDT`);
      expect(await valueOf(page, 'due')).toBe(`${shownAmount(fromBaseUnits(0n, USDT_DECIMALS, scaleOf(payment.amount_crypto)))} USDT`);
      await screenshots(page, 'checkout-paid');
    },
    CHAIN_WAIT + 30_000,
  );
});

it(
  'a partial payment shows what is still due, in the amount field, the sums and the QR code',
  async () => {
    const payment = await newPayment('USDTERC20', { order_description: 'A box of pencils' });
    const { page } = await open(payment.checkout_url);
    try {
      const paid = '10';
      await devPay(payment.transaction_id, paid, localChainsOf(stack.stackJson));
      await waitForState(page, 'partially_paid', CHAIN_WAIT);

      const scale = scaleOf(payment.amount_crypto);
      const dueUnits = baseUnits(payment.amount_crypto, USDT_DECIMALS) - baseUnits(paid, USDT_DECIMALS);
      const due = fromBaseUnits(dueUnits, USDT_DECIMALS, scale);
      expect(await valueOf(page, 'amount')).toBe(due);
      expect(await valueOf(page, 'due')).toBe(`${shownAmount(due)} USDT`);
      expect(await valueOf(page, 'received')).toBe(`${shownAmount(fromBaseUnits(baseUnits(paid, USDT_DECIMALS), USDT_DECIMALS, scale))} USDT`);
      expect(await isVisible(page, '#sums')).toBe(true);
      expect(await isVisible(page, '#pay')).toBe(true);
      expect(await valueOf(page, 'status')).toBe(`Partially paid: ${shownAmount(due)} USDT still due, to the same address`);
      const { contract, chainId } = token('ETH');
      const uri = erc20TransferUri(contract, chainId, payment.address, dueUnits);
      expect(await page.$eval('.asset', (el) => el.textContent)).toBe('USDT on Ethereum (ERC-20)');
      expect(await shownQr(page)).toBe(uri);
      expect(await page.$eval('#wallet-link', (el) => el.getAttribute('href'))).toBe(uri);
      await screenshots(page, 'checkout-partially-paid');
    } finally {
      await page.close();
    }
  },
  CHAIN_WAIT + 30_000,
);

describe('closed payments', () => {
  it('a cancelled payment shows as cancelled, with nothing to pay', async () => {
    const payment = await newPayment('USDTPOLYGON');
    const { page } = await open(payment.checkout_url);
    try {
      expect(await pageState(page)).toBe('waiting');
      expect((await api('POST', `/payments/${payment.transaction_id}/cancel/`)).status).toBe(200);
      await waitForState(page, 'cancelled', 30_000);
      expect(await isVisible(page, '#pay')).toBe(false);
      expect(await valueOf(page, 'status')).toMatch(/cancelled/);
      // Rendered by the server the same way.
      await page.reload({ waitUntil: 'load' });
      expect(await pageState(page)).toBe('cancelled');
      expect(await isVisible(page, '#pay')).toBe(false);
      expect(await valueOf(page, 'status')).toMatch(/cancelled/);
    } finally {
      await page.close();
    }
  });

  it('an expired payment shows as expired, with nothing to pay', async () => {
    const payment = await newPayment('USDTPOLYGON', { expiry_minutes: 1 });
    const { page } = await open(payment.checkout_url);
    try {
      expect(await pageState(page)).toBe('waiting');
      // The payment-expirer's run two minutes from now, without waiting for them.
      const later = new Date(Date.now() + 2 * 60_000);
      const expire = () => expirePayments({ payments: dynamoPayments, clock: { now: () => later } });
      // The expirer reads an index; retried until it has the payment (it has it at once on DynamoDB Local).
      const deadline = Date.now() + 15_000;
      let expired = (await expire()).expired;
      while (expired === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        expired = (await expire()).expired;
      }
      expect(expired).toBe(1);
      await waitForState(page, 'expired', 30_000);
      expect(await isVisible(page, '#pay')).toBe(false);
      expect(await isVisible(page, '#timer')).toBe(false);
      expect(await valueOf(page, 'status')).toMatch(/expired/);
      await page.reload({ waitUntil: 'load' });
      expect(await pageState(page)).toBe('expired');
      expect(await isVisible(page, '#pay')).toBe(false);
      expect(await valueOf(page, 'status')).toMatch(/expired/);
    } finally {
      await page.close();
    }
  });
});

describe('languages', () => {
  it('speaks German to a German browser, also in the texts its script writes, and Spanish with ?lang=es', async () => {
    const payment = await newPayment('USDTPOLYGON');
    const page = await browser.newPage();
    try {
      await page.setExtraHTTPHeaders({ 'Accept-Language': 'de-DE,de;q=0.9' });
      await page.goto(payment.checkout_url, { waitUntil: 'load' });
      expect(await page.evaluate('document.documentElement.lang')).toBe('de');
      expect(await page.title()).toBe(`${MERCHANT} bezahlen`);
      expect(await valueOf(page, 'status')).toBe('Wir warten auf Ihre Zahlung');
      expect(await page.$eval('.asset', (el) => el.textContent)).toBe('USDT auf Polygon PoS (ERC-20)');
      // After a poll the script rewrites the status line: still in German.
      await page.waitForResponse((r) => r.url().endsWith('/status') && r.ok(), { timeout: 30_000 });
      await page.waitForFunction("document.getElementById('status').textContent !== ''", { timeout: 5_000 });
      expect(await valueOf(page, 'status')).toBe('Wir warten auf Ihre Zahlung');

      await page.goto(`${payment.checkout_url}?lang=es`, { waitUntil: 'load' });
      expect(await page.evaluate('document.documentElement.lang')).toBe('es');
      expect(await page.title()).toBe(`Pagar a ${MERCHANT}`);
      expect(await valueOf(page, 'status')).toBe('Esperando su pago');
    } finally {
      await page.close();
    }
  });
});

describe('isolation', () => {
  it('loads nothing from another origin, under a strict policy it does not violate', async () => {
    const payment = await newPayment('USDTPOLYGON');
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (msg) => {
      if (msg.text().includes('Content Security Policy')) problems.push(msg.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.evaluateOnNewDocument(
      "document.addEventListener('securitypolicyviolation', (e) => { (window.__violations ||= []).push(e.violatedDirective + ' ' + e.blockedURI); });",
    );
    const recorder = recordRequests(page);
    try {
      const polled = page.waitForResponse((r) => r.url().endsWith('/status') && r.ok(), { timeout: 30_000 });
      const response = await page.goto(payment.checkout_url, { waitUntil: 'load' });
      await polled;
      recorder.stop();

      expect(response?.status()).toBe(200);
      const csp = response?.headers()['content-security-policy'] ?? '';
      expect(csp).toMatch(/(^|;\s*)default-src 'none'(;|$)/);
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');

      expect(recorder.requests.map((r) => r.url)).toEqual(expect.arrayContaining([payment.checkout_url, `${payment.checkout_url}/status`]));
      expect(recorder.foreign(origin)).toEqual([]);
      expect(recorder.requests.filter(({ url }) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);
      expect(problems).toEqual([]);
      expect(await page.evaluate('window.__violations ?? []')).toEqual([]);
    } finally {
      recorder.stop();
      await page.close();
    }
  });

  it('answers an unknown checkout id with the readable 404 page', async () => {
    const { page, response } = await open(`${origin}/checkout/AAAAAAAAAAAAAAAAAAAAAA`);
    try {
      expect(response.status()).toBe(404);
      expect(response.headers()['content-type']).toMatch(/^text\/html/);
      expect(await page.$eval('h1', (el) => el.textContent)).toBe('Payment not found');
    } finally {
      await page.close();
    }
  });
});
