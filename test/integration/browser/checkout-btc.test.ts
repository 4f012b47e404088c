import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Browser, Page } from 'puppeteer-core';
import { serveCheckout } from '../../../functions/checkout/serve.js';
import { paymentRoutes } from '../../../functions/payments/routes.js';
import { startHttpServer, type LocalHttpServer } from '../../../infra/local/http-server.js';
import { API_FUNCTIONS } from '../../../infra/definition.js';
import { depositAddress } from '../../../shared/chain/btc/p2wsh.js';
import { checkBtcAddress } from '../../../shared/domain/addresses.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { checkoutRuntime } from '../../../shared/runtime/checkout.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { launchBrowser, recordRequests } from '../../support/browser.js';
import { startHotWalletKey, type HotWalletKey } from '../../support/btc-payments.js';
import { pageState, shownQr, valueOf } from '../../support/checkout-page.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { caller, putFixedRates, servingEth, tenantWithToken, type Handler } from '../payments/support.js';

/**
 * A Bitcoin payment's hosted checkout in a real Chromium: the checkout Lambda's handler (the one CDK deploys, on
 * DynamoDB Local) behind the local API Gateway stand-in over HTTP. The BTC payment is made through the payments API
 * of a deployment serving Bitcoin on regtest, its P2WSH deposit address over the hot wallet's key on the local
 * KMS-compatible server. The QR code, read back from a screenshot of the page, is the
 * BIP21 URI `bitcoin:<address>?amount=<BTC>`, as is the wallet link, and the page names the network Bitcoin.
 */
const SETUP_TIMEOUT = 120_000;
const MERCHANT = 'Satoshi Books';

let table: TestTable;
let hot: HotWalletKey;
let server: LocalHttpServer;
let browser: Browser;
let page: Page;
let merchant: { tenantId: string; bearer: string };
let payment: { transaction_id: string; address: string; amount_crypto: string; checkout_url: string };

beforeAll(async () => {
  table = await startTestTable();
  hot = await startHotWalletKey();
  const cfg = servingEth({ HOT_WALLET_KEY_ID: hot.keyId, BTC_API_URL: 'http://127.0.0.1:9/', STAGE: 'local' });
  await putFixedRates();
  merchant = await tenantWithToken(MERCHANT);
  const payments = caller(createApi(paymentRoutes, paymentsRuntime(cfg)) as unknown as Handler, () => merchant.bearer);
  // 74.0742 USD at 60,000 USD a bitcoin: 0.00123457 BTC, every one of its 8 places shown.
  const made = await payments('POST', '/payments/', {
    body: { price_amount: '74.0742', price_currency: 'USD', currency: 'BTC', order_description: 'A paperback' },
  });
  expect(made.status).toBe(201);
  payment = made.body;

  const runtime = checkoutRuntime(cfg);
  const checkout = API_FUNCTIONS.find((f) => f.name === 'checkout');
  if (!checkout) throw new Error('no checkout function in the definition');
  server = await startHttpServer({
    port: 0,
    functions: [{ name: checkout.name, routes: checkout.routes, handler: (event) => serveCheckout(event as APIGatewayProxyEventV2, runtime, new Date()) }],
  });
  browser = await launchBrowser();
  page = await browser.newPage();
  const response = await page.goto(`${server.url}${new URL(payment.checkout_url).pathname}`, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
}, SETUP_TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await hot?.close();
  await table?.stop();
}, SETUP_TIMEOUT);

describe("a BTC payment's checkout page", () => {
  it('shows the regtest P2WSH deposit address, the amount at 8 places and the network spelled Bitcoin', async () => {
    expect(payment.address).toBe(depositAddress(merchant.tenantId, payment.transaction_id, hot.publicKey, 'local').address);
    expect(checkBtcAddress(payment.address, 'local')).toEqual({ valid: true, warning: null });
    expect(payment.amount_crypto).toBe('0.00123457');
    expect(await pageState(page)).toBe('waiting');
    expect(await valueOf(page, 'address')).toBe(payment.address);
    expect(await valueOf(page, 'amount')).toBe('0.00123457');
    expect(await page.$eval('.asset', (el) => el.textContent)).toBe('BTC on Bitcoin');
  });

  it('shows a QR code that decodes to the BIP21 URI of the address and the amount in BTC; the wallet link carries it too', async () => {
    const uri = `bitcoin:${payment.address}?amount=0.00123457`;
    expect(await shownQr(page)).toBe(uri);
    expect(await page.$eval('#wallet-link', (el) => el.getAttribute('href'))).toBe(uri);
  });

  it('loads nothing from another origin', async () => {
    const recorder = recordRequests(page);
    await page.reload({ waitUntil: 'load' });
    expect(recorder.foreign()).toEqual([]);
    recorder.stop();
  });
});
