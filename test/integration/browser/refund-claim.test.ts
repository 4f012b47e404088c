import type { Browser } from 'puppeteer-core';
import { CLAIM_MESSAGES } from '../../../functions/refund-claims/claim-i18n.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { launchBrowser, recordRequests } from '../../support/browser.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import type { Handler } from '../payments/support.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import type { Merchant } from '../refunds/support.js';
import { paid as paidPayment, routedApi } from '../refunds/support.js';

/**
 * The refund claim page in a real Chromium, served by the local stack's HTTP server (the refunds Lambda's own
 * handler): a merchant's claim-link refund of an overpayment's excess, the link opened, the address typed twice and
 * sent with the page's form (no script), and the page then shows the refund pending; the API agrees. The payment and
 * the refund are made in the test's process on the stack's table (the stack here runs no chain); the payout is not
 * part of this test: test/e2e/payments.test.ts takes a claim link through this page in Chromium to the payout on anvil
 * (batcher, chain-tx engine, chain results) and the page showing the refund sent.
 */
const SETUP_TIMEOUT = 120_000;
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const t = CLAIM_MESSAGES.en;

let stack: TestStack;
let browser: Browser;
let merchant: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;

beforeAll(async () => {
  stack = await startTestStack({ anvil: false, pollers: false });
  await putFixedRates();
  merchant = await tenantWithToken('Claim Books');
  // The merchant's side in process, on the stack's table, as a deployment serving Ethereum would answer it.
  const handler: Handler = routedApi(servingEth({ PUBLIC_BASE_URL: stack.apiUrl, HOT_WALLET_KEY_ID: 'hot-wallet-key' }), ['payments', 'refunds']);
  call = caller(handler, () => merchant.bearer);
  browser = await launchBrowser();
}, SETUP_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** A 100 USDTERC20 payment (1 % fee, the merchant's) that received `got` and completed: credited `got - 1`. */
const paid = (got: string, who: Merchant = { tenantId: merchant.tenantId, call }): Promise<PaymentState> => paidPayment(who, got);

it('a customer opens the claim link, enters the address twice, and sees the refund pending', async () => {
  const p = await paid('120');
  const created = await call('POST', `/payments/${p.id}/refunds/`, { body: { reason: 'overpaid' } });
  expect([created.status, created.body.status, created.body.amount]).toEqual([201, 'awaiting_address', '20']);
  const claimUrl = created.body.claim_url as string;
  expect(claimUrl.startsWith(`${stack.apiUrl}/refund-claims/`)).toBe(true);

  const page = await browser.newPage();
  const requests = recordRequests(page);
  const opened = await page.goto(claimUrl, { waitUntil: 'load' });
  expect(opened?.status()).toBe(200);
  expect(await page.$eval('main', (m) => m.getAttribute('data-state'))).toBe('open');
  expect(await page.$eval('#amount', (d) => d.textContent)).toBe('20 USDT');

  await page.type('#address', DEST);
  await page.type('#address_confirmation', DEST);
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#submit')]);

  expect(page.url()).toBe(claimUrl);
  expect(await page.$eval('main', (m) => m.getAttribute('data-state'))).toBe('set');
  expect(await page.$eval('#status', (s) => s.textContent)).toBe(t.pending);
  expect(await page.$eval('#address', (a) => a.textContent)).toBe(DEST);
  expect(await page.$('form')).toBeNull();
  // Everything the page loaded came from its own origin.
  expect(requests.requests.length).toBeGreaterThanOrEqual(2);
  expect(requests.foreign(new URL(stack.apiUrl).origin)).toEqual([]);

  expect((await call('GET', `/refunds/${created.body.id as string}/`)).body).toMatchObject({ status: 'pending', address: DEST, claim_url: null });
  await page.close();
});
