import type { Browser } from 'puppeteer-core';
import { API_FUNCTIONS } from '../../../infra/definition.js';
import { compileRoute, Router } from '../../../infra/local/http/router.js';
import { CLAIM_MESSAGES } from '../../../functions/refund-claims/claim-i18n.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { transition } from '../../../shared/domain/payments.js';
import { toBaseUnits } from '../../../shared/domain/money.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { apiGroupHandlers } from '../../support/api-groups.js';
import { launchBrowser, recordRequests } from '../../support/browser.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import type { Handler } from '../payments/support.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';

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
  const groups = apiGroupHandlers(servingEth({ PUBLIC_BASE_URL: stack.apiUrl, HOT_WALLET_KEY_ID: 'hot-wallet-key' }));
  const payments = groups.payments as unknown as Handler;
  const refunds = groups.refunds as unknown as Handler;
  const router = new Router(
    API_FUNCTIONS.filter((f) => f.name === 'payments' || f.name === 'refunds').flatMap((f) => f.routes.map((key) => compileRoute(key, { name: f.name }))),
  );
  const handler: Handler = (event, context) =>
    (router.match(event.requestContext.http.method, event.rawPath)?.route.target.name === 'refunds' ? refunds : payments)(event, context);
  call = caller(handler, () => merchant.bearer);
  browser = await launchBrowser();
}, SETUP_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** A 100 USDTERC20 payment of tenant A (1 % fee, the merchant's) that received `got` and completed: credited `got - 1`. */
async function paid(got: string, who: { tenantId: string; call: ReturnType<typeof caller> } = { tenantId: merchant.tenantId, call }): Promise<PaymentState> {
  const res = await who.call('POST', '/payments/', { body: { amount: '100', currency: 'USDTERC20' } });
  expect(res.status).toBe(201);
  const now = new Date();
  let p = (await dynamoPayments.get(who.tenantId, res.body.transaction_id as string)) as PaymentState;
  const deposit = {
    id: `ETH:0x${p.id.replace(/-/g, '')}:0`,
    currency: 'USDTERC20',
    amount: got,
    amountBase: toBaseUnits(got, 6).toString(),
    txHash: `0x${p.id.replace(/-/g, '')}`,
    logIndex: 0,
    blockNumber: 10,
    blockHash: '0xb',
    confirmations: 1,
    detectedAt: now.toISOString(),
    status: 'pending' as const,
    late: false,
  };
  for (const fact of [
    { kind: 'deposit', deposit },
    { kind: 'confirmations', byDeposit: { [deposit.id]: 12 }, confirmationsNeeded: 12, tolerancePercent: '0' },
    { kind: 'sweep_started' },
    { kind: 'sweep_completed', txHash: '0xsweep', usdRate: '1' },
  ] as const) {
    p = await dynamoPayments.save(p, transition(p, fact, now), now);
  }
  expect(p.status).toBe('completed');
  return p;
}

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
