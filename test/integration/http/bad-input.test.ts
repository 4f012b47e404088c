import { createRouter } from '../../../shared/http/router.js';
import { WORDING } from '../../../shared/domain/errors-wording.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { apiGroupHandlers } from '../../support/api-groups.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { API_ROUTE_TABLES } from '../../support/route-tables.js';
import { caller, putFixedRates, servingEth, tenantWithToken, type Handler } from '../payments/support.js';

/**
 * Bad input through the real handlers of every API Lambda on DynamoDB Local (issue 25, items 7, 8 and 14): a query
 * the endpoint does not take, or of the other list form, or a cursor it did not hand out, is 400 `invalid_request`
 * naming the parameter, never a 500 and never ignored; each kind of error reads the same on every endpoint; a body
 * whose currency, blockchain and token disagree is refused, naming them, and moves nothing.
 */
const DEST = '0x52908400098527886E0F7030069857D2E4169EE7';
let table: TestTable;
let tenant: { tenantId: string; bearer: string };
const call: Record<string, ReturnType<typeof caller>> = {};

beforeAll(async () => {
  table = await startTestTable();
  const cfg = servingEth({ HOT_WALLET_KEY_ID: 'input-hot-wallet' });
  await putFixedRates();
  tenant = await tenantWithToken('Bad input', ['read', 'write', 'admin']);
  for (const [name, handler] of Object.entries(apiGroupHandlers(cfg))) call[name] = caller(handler as unknown as Handler, () => tenant.bearer);
  for (const amount of ['1000', '1', '2']) {
    await creditAdjustment({ tenant_id: tenant.tenantId, currency: 'USDTERC20', amount, reason: 'test funding' }, ledgerRuntime());
  }
});

afterAll(async () => {
  await table?.stop();
});

const routers = Object.entries(API_ROUTE_TABLES).map(([name, routes]) => [name, createRouter(routes)] as const);

/** The group whose Lambda serves a method and path (from the route tables). */
const groupOf = (method: string, path: string): string => {
  const found = routers.find(([, find]) => find(method, path).kind === 'found');
  if (!found) throw new Error(`no group serves ${method} ${path}`);
  return found[0];
};

/** One request to the Lambda of the group that serves it. */
async function send(method: string, path: string, options: { body?: unknown; query?: Record<string, string>; group?: string } = {}) {
  return (call[options.group ?? groupOf(method, path)] as ReturnType<typeof caller>)(method, path, options);
}

/** The details of a 400 `invalid_request` (or the code the route's section of the interface names; else the test fails). */
async function refused(method: string, path: string, options: { body?: unknown; query?: Record<string, string>; group?: string; code?: string } = {}) {
  const res = await send(method, path, options);
  expect([method, path, res.status, res.body?.error?.code]).toEqual([method, path, 400, options.code ?? 'invalid_request']);
  return res.body.error.details as Record<string, string[]>;
}

const encode = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

describe('item 7: bad query input is a 400 naming the parameter, never a 500 and never ignored', () => {
  it('refuses a crafted cursor on GET /transactions/transactions/, naming cursor', async () => {
    const first = await send('GET', '/transactions/transactions/', { query: { limit: '1' } });
    expect(first.status).toBe(200);
    const real = JSON.parse(Buffer.from(String(first.body.next_cursor), 'base64url').toString('utf8')) as Record<string, string>;
    expect(Object.keys(real).sort()).toEqual(['gsi1pk', 'gsi1sk', 'pk', 'sk']);
    const crafted = [
      { ...real, pk: '' },
      { ...real, sk: '' },
      { ...real, gsi1sk: '' },
      { ...real, pk: 'TENANT#someone-else' },
      { ...real, sk: 'TXN#payment#not-this-one' },
      { ...real, gsi1sk: `${real.gsi1sk}x` },
      { ...real, gsi1sk: `${real.gsi1sk}${'x'.repeat(1000)}` },
      { ...real, extra: '1' },
      { gsi1pk: real.gsi1pk },
      [real.pk, real.sk],
      null,
      42,
    ];
    for (const cursor of crafted) {
      expect([cursor, await refused('GET', '/transactions/transactions/', { query: { cursor: encode(cursor) } })]).toEqual([
        cursor,
        { cursor: [WORDING.notOurs] },
      ]);
    }
    // A cursor of a place outside the dates asked (a cursor of another filter) names nothing of this list.
    const details = await refused('GET', '/transactions/transactions/', { query: { cursor: String(first.body.next_cursor), date_to: '2020-01-01' } });
    expect(details).toEqual({ cursor: [WORDING.notOurs] });
    // The cursor says where the page starts: an offset beside it is refused rather than ignored.
    const both = await refused('GET', '/transactions/transactions/', { query: { cursor: String(first.body.next_cursor), offset: '1' } });
    expect(Object.keys(both)).toEqual(['offset']);
    // The real one still pages.
    const next = await send('GET', '/transactions/transactions/', { query: { limit: '1', cursor: String(first.body.next_cursor) } });
    expect([next.status, next.body.transactions.length]).toEqual([200, 1]);
  });

  it('refuses a cursor of the webhook attempt log it did not hand out, naming cursor', async () => {
    for (const cursor of [encode({ t: tenant.tenantId }), encode('null'), 'not a cursor']) {
      expect(await refused('GET', '/user/webhooks/deliveries/', { query: { cursor } })).toEqual({ cursor: [WORDING.notOurs] });
    }
  });

  const SAMPLE: Readonly<Record<string, string>> = { blockchain: 'ETH', currency: 'USDTERC20' };
  const routes = Object.entries(API_ROUTE_TABLES).flatMap(([group, list]) =>
    list
      .filter((r) => r.errorFormat !== 'legacy' && r.errorFormat !== 'oauth')
      .map(
        (r) =>
          [
            `${r.method} ${r.path}`,
            group,
            r.method,
            r.path.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLE[name] ?? '5f0c6f0e-8a3b-4c55-9e1a-0d6f4c2b7a10'),
          ] as const,
      ),
  );

  it.each(routes)('%s refuses a query parameter it does not take, naming it', async (_, group, method, path) => {
    const details = await refused(method, path, { group, query: { utm_source: 'newsletter' } });
    expect(details.utm_source).toEqual([WORDING.unknownParameter]);
  });

  it('keeps the parameters each endpoint documents, and names an unknown one beside a bad known one', async () => {
    expect((await send('GET', '/payments/', { query: { status: 'waiting', page: '1', page_size: '5', ordering: '-amount' } })).status).toBe(200);
    expect((await send('GET', '/payments/', { query: { limit: '5', offset: '0', currency: 'USDTBSC', blockchain: 'BSC', token: 'USDT' } })).status).toBe(200);
    expect((await send('GET', '/withdrawal/', { query: { limit: '5', sort: 'amount_asc', start_date: '2026-01-01' } })).status).toBe(200);
    expect((await send('GET', '/custody/accounts', { query: { skip: '0', limit: '5', status: 'active' } })).status).toBe(200);
    expect((await send('GET', '/user/balances/history/', { query: { currency: 'USDTERC20', limit: '5', offset: '0' } })).status).toBe(200);
    const both = await refused('GET', '/payments/', { query: { statuss: 'waiting', page_size: '0' } });
    expect(both).toEqual({ statuss: [WORDING.unknownParameter], page_size: [WORDING.min(1)] });
    // The v0.9 paths answer 410 whatever they are sent; the OAuth endpoints ignore unknown parameters (RFC 6749 3.2).
    expect((await send('GET', '/v0/payments', { group: 'legacy', query: { utm_source: 'x' } })).status).toBe(410);
  });

  it('refuses a parameter of the other list form, saying what to add or remove', async () => {
    expect(await refused('GET', '/payments/', { query: { currency: 'USDTBSC' } })).toEqual({
      currency: [WORDING.otherFormAdd('offset form', ['limit', 'offset'])],
    });
    expect(WORDING.otherFormAdd('offset form', ['limit', 'offset'])).toBe('This parameter belongs to the offset form: add limit or offset.');
    expect(await refused('GET', '/payments/', { query: { blockchain: 'BSC', token: 'USDT', status: 'waiting' } })).toEqual({
      blockchain: [WORDING.otherFormAdd('offset form', ['limit', 'offset'])],
      token: [WORDING.otherFormAdd('offset form', ['limit', 'offset'])],
    });
    expect(await refused('GET', '/payments/', { query: { limit: '5', page: '2', pay_currency: 'USDTERC20' } })).toEqual({
      page: [WORDING.otherFormRemove('page form', ['limit'])],
      pay_currency: [WORDING.otherFormRemove('page form', ['limit'])],
    });
    expect(await refused('GET', '/rates/', { query: { amount: '5', currency_from: 'USD' } })).toEqual({
      amount: [WORDING.otherFormAdd('conversion form', ['currency_to'])],
      currency_from: [WORDING.otherFormAdd('conversion form', ['currency_to'])],
    });
    expect((await send('GET', '/rates/', { query: { amount: '5', currency_to: 'ETH' } })).status).toBe(200);
  });
});

/** A body route, the body it is sent, the field whose message is checked, and the error code where not invalid_request. */
type Case = readonly [method: string, path: string, body: Record<string, unknown>, field: string, code?: string];

const full = (c: Case): [string, string, Record<string, unknown>, string, string] => [c[0], c[1], c[2], c[3], c[4] ?? 'invalid_request'];

const REQUIRED: readonly Case[] = [
  ['POST', '/payments/', { currency: 'USDTERC20' }, 'amount'],
  ['POST', '/payments/status/', {}, 'transaction_id'],
  ['POST', '/payments/estimate/', { currency: 'USDTERC20' }, 'amount'],
  ['POST', '/rates/calculate/', { amount: '1', to_currency: 'ETH' }, 'from_currency'],
  ['POST', '/o/apps/', {}, 'name'],
  ['POST', '/user/webhooks/test/', {}, 'event_type'],
  // Variant B webhooks answer their own codes (spec 4.6), with details as everywhere.
  ['POST', '/user/webhooks', {}, 'url', 'invalid_url'],
  ['DELETE', '/user/webhooks', {}, 'webhook_id', 'invalid_webhook_id'],
  ['POST', '/withdrawal/validate-address/', { currency: 'USDTERC20' }, 'address'],
  ['POST', '/withdrawal/estimate/', { currency: 'USDTERC20' }, 'amount'],
  ['POST', '/withdrawal/fee-estimate/', { amount: '10' }, 'currency'],
  ['POST', '/withdrawal/', { amount: '10', currency: 'USDTERC20' }, 'address'],
  ['POST', '/withdrawal/status/', {}, 'withdrawal_id'],
  ['POST', '/wallets/', {}, 'name'],
  ['POST', '/wallets/transfer-to-user/', { currency: 'USDTERC20', amount: '1' }, 'wallet_id'],
  ['POST', '/wallets/withdraw-to-master/', { wallet_id: '5f0c6f0e-8a3b-4c55-9e1a-0d6f4c2b7a10', amount: '1' }, 'currency'],
  ['POST', '/custody/accounts', {}, 'name'],
  ['POST', '/custody/transfer', { to_account_id: 'a', blockchain: 'ETH', amount: 5 }, 'from_account_id'],
  ['POST', '/custody/withdraw', { blockchain: 'ETH', amount: 5, destination_address: DEST }, 'account_id'],
];

const NUMBER_FOR_STRING: readonly Case[] = [
  ['POST', '/payments/', { amount: '25', currency: 'USDTERC20', order_id: 123 }, 'order_id'],
  ['POST', '/payments/status/', { transaction_id: 1 }, 'transaction_id'],
  ['POST', '/rates/calculate/', { amount: '1', from_currency: 1, to_currency: 'ETH' }, 'from_currency'],
  ['POST', '/o/apps/', { name: 7 }, 'name'],
  ['POST', '/user/webhooks/test/', { event_type: 1 }, 'event_type'],
  ['POST', '/user/webhooks', { url: 'https://hooks.example.com/x', description: 5 }, 'description'],
  ['POST', '/withdrawal/validate-address/', { address: 123, currency: 'USDTERC20' }, 'address'],
  ['POST', '/withdrawal/fee-estimate/', { amount: '10', currency: 10 }, 'currency'],
  ['POST', '/withdrawal/', { amount: '10', currency: 'USDTERC20', address: DEST, custom_id: 7 }, 'custom_id'],
  ['POST', '/wallets/', { name: 5 }, 'name'],
  ['PATCH', '/wallets/5f0c6f0e-8a3b-4c55-9e1a-0d6f4c2b7a10/', { name: 5 }, 'name'],
  ['POST', '/custody/accounts', { name: 5 }, 'name'],
  ['POST', '/custody/transfer', { from_account_id: 1, to_account_id: 'a', blockchain: 'ETH', amount: 5 }, 'from_account_id'],
  ['POST', '/custody/withdraw', { account_id: 'a', blockchain: 'ETH', amount: 5, destination_address: 5 }, 'destination_address'],
];

const BAD_CHOICE: readonly Case[] = [
  ['POST', '/custody/accounts', { name: 'x', account_type: 'bogus' }, 'account_type'],
  ['POST', '/transactions/export/', { format: 'xml' }, 'format'],
  ['POST', '/transactions/export/', { type: 'bogus' }, 'type'],
  ['POST', '/wallets/transfer-history/', { status: 'bogus' }, 'status'],
  ['POST', '/wallets/transfer-history/', { transfer_type: 'sideways' }, 'transfer_type'],
];

const BAD_CHOICE_QUERY: readonly (readonly [path: string, query: Record<string, string>, field: string])[] = [
  ['/payments/', { status: 'bogus' }, 'status'],
  ['/payments/', { ordering: 'bogus' }, 'ordering'],
  ['/withdrawal/', { sort: 'bogus' }, 'sort'],
  ['/withdrawal/', { status: 'bogus' }, 'status'],
  ['/transactions/transactions/', { type: 'bogus' }, 'type'],
  ['/transactions/transactions/', { status: 'bogus' }, 'status'],
  ['/custody/accounts', { status: 'bogus' }, 'status'],
  ['/user/balances/history/', { type: 'bogus' }, 'type'],
];

describe('item 8: one wording per kind of error on every endpoint', () => {
  it.each(REQUIRED.map(full))('%s %s without %j: "%s" is required, worded as everywhere', async (method, path, body, field, code) => {
    const details = await refused(method, path, { body, code });
    expect([field, details[field]]).toEqual([field, [WORDING.required]]);
  });

  it.each(NUMBER_FOR_STRING.map(full))('%s %s with a number where a string is expected (%j): "%s"', async (method, path, body, field, code) => {
    const details = await refused(method, path, { body, code });
    expect([field, details[field]]).toEqual([field, [WORDING.wrongType('string')]]);
  });

  it.each(BAD_CHOICE.map(full))('%s %s with a value outside its set (%j): "%s"', async (method, path, body, field, code) => {
    const details = await refused(method, path, { body, code });
    expect([field, details[field]?.length, details[field]?.[0]]).toEqual([field, 1, expect.stringMatching(/^Must be one of: \S.*\.$/)]);
  });

  it.each(BAD_CHOICE_QUERY)('GET %s with a value outside its set (%j): "%s"', async (path, query, field) => {
    const details = await refused('GET', path, { query });
    expect([field, details[field]?.length, details[field]?.[0]]).toEqual([field, 1, expect.stringMatching(/^Must be one of: \S.*\.$/)]);
  });

  it('words a missing query parameter, a wrong boolean, a bad format, a bound and a body that is not an object as everywhere', async () => {
    expect(await refused('GET', '/payments/min-amount/')).toEqual({ currency: [WORDING.required] });
    expect(await refused('GET', '/currencies/', { query: { full: 'maybe' } })).toEqual({ full: [WORDING.wrongType('boolean')] });
    expect(await refused('POST', '/payments/status/', { body: { transaction_id: 'x' } })).toEqual({ transaction_id: [WORDING.format('uuid')] });
    expect(await refused('POST', '/payments/', { body: { amount: true, currency: 'USDTERC20' } })).toEqual({ amount: [WORDING.wrongType('number')] });
    expect(await refused('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20', expiry_minutes: 0 } })).toEqual({
      expiry_minutes: [WORDING.min(1)],
    });
    expect(await refused('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20', order_id: 'x'.repeat(101) } })).toEqual({
      order_id: [WORDING.maxLength(100)],
    });
    expect(await refused('GET', '/withdrawal/', { query: { limit: '500' } })).toEqual({ limit: [WORDING.max(100)] });
    expect(await refused('POST', '/wallets/', { body: { name: null } })).toEqual({ name: [WORDING.null] });
    expect(await refused('POST', '/wallets/', { body: [] })).toEqual({ non_field_errors: [WORDING.notAnObject] });
    expect(await refused('POST', '/wallets/', { body: '{"name":' })).toEqual({ body: [WORDING.notJson] });
    // No answer names a JSON library's type.
    const answer = await send('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20', order_id: 5, custom_id: 6, customer_email: 7 } });
    expect(JSON.stringify(answer.body)).not.toMatch(/JsonNumber|expected|received|Invalid input/);
  });
});

describe('item 14: a body that contradicts itself is refused, naming the fields, and moves nothing', () => {
  const paymentsTotal = async () => (await send('GET', '/payments/', { query: { limit: '1' } })).body.total as number;
  const available = async () => {
    const res = await send('GET', '/user/balances/');
    return res.body.account.USDTERC20.amount as string;
  };

  it('POST /payments/ with a currency on one chain and a blockchain naming another', async () => {
    const before = await paymentsTotal();
    const details = await refused('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20', blockchain: 'TRON', token: 'USDT' } });
    expect(details).toEqual({
      currency: [WORDING.contradicts('blockchain', 'USDTERC20 is USDT on ETH.')],
      blockchain: [WORDING.contradicts('currency', 'USDTERC20 is USDT on ETH.')],
    });
    expect(Object.keys(await refused('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20', token: 'USDC' } })).sort()).toEqual([
      'currency',
      'token',
    ]);
    expect(Object.keys(await refused('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20', pay_currency: 'ETH' } })).sort()).toEqual([
      'currency',
      'pay_currency',
    ]);
    expect(Object.keys(await refused('POST', '/payments/', { body: { amount: '25', pay_currency: 'ETH', blockchain: 'ETH', token: 'USDT' } })).sort()).toEqual([
      'pay_currency',
      'token',
    ]);
    expect(Object.keys(await refused('POST', '/payments/estimate/', { body: { amount: '25', currency: 'USDTERC20', blockchain: 'TRX' } })).sort()).toEqual([
      'blockchain',
      'currency',
    ]);
    expect(Object.keys(await refused('POST', '/payments/', { body: { amount: '25', price_amount: '30', currency: 'USDTERC20' } })).sort()).toEqual([
      'amount',
      'price_amount',
    ]);
    expect(await paymentsTotal()).toBe(before);
    // Saying the same thing twice is no contradiction (any spelling of the network and token).
    const agreeing = await send('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20', blockchain: 'eth', token: 'usdt' } });
    expect([agreeing.status, agreeing.body.currency]).toEqual([201, 'USDTERC20']);
    expect(await paymentsTotal()).toBe(before + 1);
  });

  it('POST /withdrawal/, its estimate and the minimum amount with a currency and a blockchain that disagree', async () => {
    const before = await available();
    const body = { amount: '20', currency: 'USDTERC20', blockchain: 'TRON', token: 'USDT', address: DEST };
    expect(Object.keys(await refused('POST', '/withdrawal/', { body })).sort()).toEqual(['blockchain', 'currency']);
    const twoAmounts = { amount: '20', price_amount: '20', price_currency: 'EUR', currency: 'USDTERC20', address: DEST };
    expect(Object.keys(await refused('POST', '/withdrawal/', { body: twoAmounts })).sort()).toEqual(['amount', 'price_amount']);
    expect(await available()).toBe(before);
    expect(Object.keys(await refused('POST', '/withdrawal/estimate/', { body: { amount: '20', currency: 'USDTERC20', token: 'DAI' } })).sort()).toEqual([
      'currency',
      'token',
    ]);
    expect(Object.keys(await refused('POST', '/withdrawal/min-amount/', { body: { currency: 'USDTERC20', blockchain: 'TRON' } })).sort()).toEqual([
      'blockchain',
      'currency',
    ]);
    const agreeing = await send('POST', '/withdrawal/min-amount/', { body: { currency: 'USDTERC20', blockchain: 'ETH', token: 'USDT' } });
    expect([agreeing.status, agreeing.body.currency]).toEqual([200, 'USDTERC20']);
  });
});
