import type { Browser } from 'puppeteer-core';
import { launchBrowser, recordRequests } from '../../support/browser.js';
import { pageState, valueOf } from '../../support/checkout-page.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import { caller, EVERY_TOKEN_CONTRACT, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import { routedApi } from '../refunds/support.js';

/**
 * The payment link page in a real Chromium, served by the local stack's HTTP server (the link page's own Lambda
 * handler): a merchant's link offering two currencies, opened by a payer who picks ETH with the page's form (no
 * script) and lands on that new payment's hosted checkout, on the same origin, waiting for 0.01 ETH (30 USD at 3000
 * USD); the API lists the payment under the link. The stack here runs no chain: it serves Ethereum as a deployment
 * would (a factory to derive deposit addresses from, the token contracts), and nothing is paid.
 */
const SETUP_TIMEOUT = 120_000;
const SERVING_ETH = {
  EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:9/' }),
  FORWARDER_FACTORIES: JSON.stringify({ ETH: '0x1111111111111111111111111111111111111111' }),
  TOKEN_CONTRACTS: EVERY_TOKEN_CONTRACT,
};

let stack: TestStack;
let browser: Browser;
let merchant: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  // The stack's handlers read the process's environment: Ethereum served, with no chain behind it.
  for (const [k, v] of Object.entries(SERVING_ETH)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  stack = await startTestStack({ anvil: false, pollers: false });
  await putFixedRates();
  merchant = await tenantWithToken('Link Records');
  call = caller(routedApi(servingEth({ PUBLIC_BASE_URL: stack.apiUrl }), ['payments', 'payment-links']), () => merchant.bearer);
  browser = await launchBrowser();
}, SETUP_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

it('a payer picks a currency on the link page and lands on that payment’s checkout', async () => {
  const made = await call('POST', '/payment-links/', { body: { name: 'Vinyl record', amount: '30', currencies: ['USDTERC20', 'ETH'] } });
  expect(made.status).toBe(201);
  const url = made.body.url as string;
  expect(url.startsWith(`${stack.apiUrl}/pay/`)).toBe(true);

  const page = await browser.newPage();
  const requests = recordRequests(page);
  const opened = await page.goto(url, { waitUntil: 'load' });
  expect(opened?.status()).toBe(200);
  expect(await pageState(page)).toBe('active');
  expect(await valueOf(page, 'title')).toBe('Vinyl record');
  // Opening the page opened no payment.
  expect((await call('GET', `/payment-links/${made.body.id as string}/payments/`)).body.results).toEqual([]);

  await page.click('input[name="currency"][value="ETH"]');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#pay')]);

  const listed = await call('GET', `/payment-links/${made.body.id as string}/payments/`);
  expect(listed.body.results).toHaveLength(1);
  const payment = listed.body.results[0] as { transaction_id: string; checkout_url: string; currency: string; amount_crypto: string; payment_link_id: string };
  expect([payment.currency, payment.amount_crypto, payment.payment_link_id]).toEqual(['ETH', expect.stringMatching(/^0\.01/), made.body.id]);
  expect(page.url()).toBe(payment.checkout_url);
  expect(await pageState(page)).toBe('waiting');
  expect(await valueOf(page, 'amount')).toBe(payment.amount_crypto);
  // Everything the two pages loaded came from their own origin.
  expect(requests.foreign(new URL(stack.apiUrl).origin)).toEqual([]);
  await page.close();
});
