import { paymentRoutes } from '../../../functions/payments/routes.js';
import { transactionRoutes } from '../../../functions/transactions/routes.js';
import { walletRoutes } from '../../../functions/wallets/routes.js';
import { idempotentEndpoints } from '../../../scripts/idempotency-table.js';
import type { Config } from '../../../shared/config/config.js';
import type { CurrencyCode } from '../../../shared/domain/currencies.js';
import type { AccountId, Balance } from '../../../shared/domain/ledger.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { paymentsRuntime } from '../../../shared/runtime/payments.js';
import { transactionsRuntime } from '../../../shared/runtime/transactions.js';
import { walletsRuntime } from '../../../shared/runtime/wallets.js';
import { type CallTrace, traceCalls, type TracedCall } from '../../../shared/store/call-trace.js';
import { queryAll, tableName } from '../../../shared/store/client.js';
import { keys } from '../../../shared/store/keys.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { custodyApi } from '../../support/custody.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { withdrawalsApi } from '../../support/withdrawals.js';
import { paid, routedApi } from '../refunds/support.js';
import { caller, type Answer, type Handler, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';

/**
 * Every endpoint that honours `Idempotency-Key` (the routes' `idempotent` flag), through the real route tables and
 * wiring on DynamoDB Local, each with a tenant of its own: the same request sent twice with one key is answered
 * twice with the first status and body, the second time with `Idempotent-Replayed: true`, and what it moves or
 * creates (balances, ledger rows, items) moves once; the same key with another request is 422
 * `idempotency_key_reused` and changes nothing.
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
let table: TestTable;
let cfg: Config;
let trace: CallTrace;

type Call = ReturnType<typeof caller>;

interface Request {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

interface Prepared {
  readonly request: Request;
  /** Another request (another body, or for a body-less endpoint another path) sent with the same key. */
  readonly other: Request;
  /** The balances the request moves (empty where it only creates). */
  readonly balances: readonly [AccountId, CurrencyCode][];
}

interface Case {
  /** The endpoint as the route table writes it. */
  readonly endpoint: string;
  readonly status: number;
  readonly api: () => Handler;
  prepare(t: { tenantId: string }, call: Call): Promise<Prepared>;
  /** What one request did, told from the partition before and after it. */
  readonly effect: (before: Snapshot, after: Snapshot) => void;
  /**
   * Whether the key's record completes in the change's own TransactWriteItems (default), or after the change, in a
   * write of its own (where the change is keyed by what it makes, so that a retry after a crash cannot make another).
   */
  readonly completesAfter?: true;
}

/** The tenant's items (what a request writes but its count and its idempotency record), and its balances. */
interface Snapshot {
  readonly items: Record<string, unknown>;
  readonly balances: Record<string, unknown>;
}

const fund = (tenantId: string, amount: string, account?: AccountId) =>
  creditAdjustment({ tenant_id: tenantId, currency: 'USDTERC20', amount, reason: 'idempotency test', ...(account ? { account } : {}) }, ledgerRuntime());

async function snapshot(tenantId: string, balances: readonly [AccountId, CurrencyCode][]): Promise<Snapshot> {
  const rows = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.tenant(tenantId).pk },
    ConsistentRead: true,
  });
  const items = Object.fromEntries(rows.filter((r) => !/^(USAGE|IDEM)#/.test(String(r.sk))).map((r) => [String(r.sk), r]));
  const read = await Promise.all(balances.map(async ([account, currency]) => [`${account} ${currency}`, await getBalance(tenantId, account, currency)]));
  return { items, balances: Object.fromEntries(read) };
}

/** How many of the tenant's items have a sort key starting with `prefix`. */
const count = (s: Snapshot, prefix: string) => Object.keys(s.items).filter((sk) => sk.startsWith(prefix)).length;
const created = (prefix: string) => (before: Snapshot, after: Snapshot) => expect(count(after, prefix) - count(before, prefix)).toBe(1);

const custodyAccount = async (call: Call, tenantId: string, amount?: string): Promise<string> => {
  const made = await call('POST', '/custody/accounts', { body: { name: 'Treasury' } });
  const id = made.body.account_id as string;
  if (amount) await fund(tenantId, amount, `custody:${id}`);
  return id;
};

const wallet = async (call: Call): Promise<string> => (await call('POST', '/wallets/', { body: { name: 'Seller' } })).body.wallet_id as string;

const withdrawal = async (call: Call): Promise<string> => {
  const made = await call('POST', '/withdrawal/', { body: { amount: 20, currency: 'USDTERC20', address: DEST } });
  expect(made.status).toBe(201);
  return made.body.id as string;
};

/** A monthly plan of 20 USD paid in USDTERC20 (issue 30). */
const plan = async (call: Call): Promise<string> =>
  (await call('POST', '/plans/', { body: { name: 'Monthly', amount: '20', currency: 'USDTERC20', interval: 'month' } })).body.id as string;

const CASES: readonly Case[] = [
  {
    endpoint: 'POST /plans/',
    status: 201,
    api: () => routedApi(cfg, ['subscriptions']),
    prepare: async () => ({
      request: { method: 'POST', path: '/plans/', body: { name: 'Monthly', amount: '20', currency: 'USDTERC20', interval: 'month' } },
      other: { method: 'POST', path: '/plans/', body: { name: 'Yearly', amount: '200', currency: 'USDTERC20', interval: 'year' } },
      balances: [],
    }),
    effect: created('PLAN#'),
  },
  {
    endpoint: 'POST /subscriptions/',
    status: 201,
    api: () => routedApi(cfg, ['subscriptions']),
    prepare: async (_t, call) => {
      const id = await plan(call);
      return {
        request: { method: 'POST', path: '/subscriptions/', body: { plan_id: id, customer_reference: 'c-1', collection: 'push' } },
        other: { method: 'POST', path: '/subscriptions/', body: { plan_id: id, customer_reference: 'c-2', collection: 'push' } },
        balances: [],
      };
    },
    // One subscription, its first period's cycle and that period's payment.
    effect: (before, after) => {
      expect(['SUB#', 'SUBCYCLE#', 'PAYMENT#'].map((p) => count(after, p) - count(before, p))).toEqual([1, 1, 1]);
    },
  },
  {
    endpoint: 'POST /subscriptions/{subscription_id}/cancel/',
    status: 200,
    api: () => routedApi(cfg, ['subscriptions']),
    prepare: async (_t, call) => {
      const id = await plan(call);
      const subscribe = async () =>
        (await call('POST', '/subscriptions/', { body: { plan_id: id, customer_reference: 'c', collection: 'push' } })).body.id as string;
      const [one, two] = [await subscribe(), await subscribe()];
      return {
        request: { method: 'POST', path: `/subscriptions/${one}/cancel/`, body: {} },
        other: { method: 'POST', path: `/subscriptions/${two}/cancel/`, body: {} },
        balances: [],
      };
    },
    effect: (before, after) => {
      const statuses = (s: Snapshot) =>
        Object.values(s.items)
          .filter((i) => String((i as { sk: string }).sk).startsWith('SUB#'))
          .map((i) => (i as { status: string }).status);
      expect(statuses(before).sort()).toEqual(['incomplete', 'incomplete']);
      expect(statuses(after).sort()).toEqual(['canceled', 'incomplete']);
    },
  },
  {
    endpoint: 'POST /payments/',
    status: 201,
    api: () => createApi(paymentRoutes, paymentsRuntime(cfg)),
    prepare: async () => ({
      request: { method: 'POST', path: '/payments/', body: { amount: 25, currency: 'USDTERC20' } },
      other: { method: 'POST', path: '/payments/', body: { amount: 26, currency: 'USDTERC20' } },
      balances: [],
    }),
    effect: created('PAYMENT#'),
  },
  {
    endpoint: 'POST /withdrawal/',
    status: 201,
    api: () => withdrawalsApi(),
    prepare: async (t) => {
      await fund(t.tenantId, '100');
      return {
        request: { method: 'POST', path: '/withdrawal/', body: { amount: 20, currency: 'USDTERC20', address: DEST } },
        other: { method: 'POST', path: '/withdrawal/', body: { amount: 21, currency: 'USDTERC20', address: DEST } },
        balances: [['main', 'USDTERC20']],
      };
    },
    effect: (before, after) => {
      expect(count(after, 'WITHDRAWAL#') - count(before, 'WITHDRAWAL#')).toBe(1);
      // 20 and its fees held, once.
      const main = after.balances['main USDTERC20'] as Balance;
      expect([Number(main.amount) + Number(main.locked), Number(main.locked)]).toEqual([100, expect.any(Number)]);
      expect(Number(main.locked)).toBeGreaterThan(20);
    },
  },
  {
    endpoint: 'POST /withdrawal/{withdrawal_id}/cancel/',
    status: 200,
    api: () => withdrawalsApi(),
    prepare: async (t, call) => {
      await fund(t.tenantId, '100');
      const [one, two] = [await withdrawal(call), await withdrawal(call)];
      return {
        request: { method: 'POST', path: `/withdrawal/${one}/cancel/` },
        other: { method: 'POST', path: `/withdrawal/${two}/cancel/` },
        balances: [['main', 'USDTERC20']],
      };
    },
    // The cancel returns one of the two holds; the other withdrawal keeps its own.
    effect: (before, after) => {
      const [held, left] = [before.balances['main USDTERC20'] as Balance, after.balances['main USDTERC20'] as Balance];
      expect(Number(left.locked)).toBeGreaterThan(0);
      expect(Number(left.locked) * 2).toBeCloseTo(Number(held.locked), 8);
      expect(Number(left.amount) + Number(left.locked)).toBe(100);
    },
  },
  {
    endpoint: 'POST /wallets/',
    status: 201,
    api: () => createApi(walletRoutes, walletsRuntime(cfg)),
    prepare: async () => ({
      request: { method: 'POST', path: '/wallets/', body: { name: 'Seller' } },
      other: { method: 'POST', path: '/wallets/', body: { name: 'Buyer' } },
      balances: [],
    }),
    effect: created('WALLET#'),
  },
  {
    endpoint: 'POST /wallets/transfer-to-user/',
    status: 202,
    api: () => createApi(walletRoutes, walletsRuntime(cfg)),
    prepare: async (t, call) => {
      await fund(t.tenantId, '100');
      const id = await wallet(call);
      return {
        request: { method: 'POST', path: '/wallets/transfer-to-user/', body: { wallet_id: id, currency: 'USDTERC20', amount: '7' } },
        other: { method: 'POST', path: '/wallets/transfer-to-user/', body: { wallet_id: id, currency: 'USDTERC20', amount: '8' } },
        balances: [['main', 'USDTERC20']],
      };
    },
    effect: (before, after) => {
      expect(count(after, 'WTRANSFER#') - count(before, 'WTRANSFER#')).toBe(1);
      expect(after.balances['main USDTERC20']).toMatchObject({ amount: '93', locked: '7' });
    },
  },
  {
    endpoint: 'POST /wallets/withdraw-to-master/',
    status: 202,
    api: () => createApi(walletRoutes, walletsRuntime(cfg)),
    prepare: async (t, call) => {
      const id = await wallet(call);
      await fund(t.tenantId, '100', `wallet:${id}`);
      return {
        request: { method: 'POST', path: '/wallets/withdraw-to-master/', body: { wallet_id: id, currency: 'USDTERC20', amount: '7' } },
        other: { method: 'POST', path: '/wallets/withdraw-to-master/', body: { wallet_id: id, currency: 'USDTERC20', amount: '8' } },
        balances: [[`wallet:${id}`, 'USDTERC20']],
      };
    },
    effect: (before, after) => {
      expect(count(after, 'WTRANSFER#') - count(before, 'WTRANSFER#')).toBe(1);
      expect(Object.values(after.balances)).toEqual([expect.objectContaining({ amount: '93', locked: '7' })]);
    },
  },
  {
    endpoint: 'POST /payments/{transaction_id}/refunds/',
    status: 201,
    api: () => routedApi(cfg, ['payments', 'refunds']),
    prepare: async (t, call) => {
      const p = await paid({ tenantId: t.tenantId, call }, '120');
      return {
        request: { method: 'POST', path: `/payments/${p.id}/refunds/`, body: { amount: '20', address: DEST } },
        other: { method: 'POST', path: `/payments/${p.id}/refunds/`, body: { amount: '21', address: DEST } },
        balances: [['main', 'USDTERC20']],
      };
    },
    effect: (before, after) => {
      expect(count(after, 'REFUND#') - count(before, 'REFUND#')).toBe(1);
      // Credited 119; 20 held, once.
      expect(after.balances['main USDTERC20']).toMatchObject({ amount: '99', locked: '20' });
    },
  },
  {
    endpoint: 'POST /refunds/{refund_id}/cancel/',
    status: 200,
    api: () => routedApi(cfg, ['payments', 'refunds']),
    prepare: async (t, call) => {
      const p = await paid({ tenantId: t.tenantId, call }, '120');
      const refund = async () => (await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '20' } })).body.id as string;
      const [one, two] = [await refund(), await refund()];
      return {
        request: { method: 'POST', path: `/refunds/${one}/cancel/` },
        other: { method: 'POST', path: `/refunds/${two}/cancel/` },
        balances: [['main', 'USDTERC20']],
      };
    },
    // The cancel returns one of the two holds; the other refund keeps its own.
    effect: (before, after) => {
      expect(before.balances['main USDTERC20']).toMatchObject({ amount: '79', locked: '40' });
      expect(after.balances['main USDTERC20']).toMatchObject({ amount: '99', locked: '20' });
    },
  },
  {
    endpoint: 'POST /payment-links/',
    status: 201,
    api: () => routedApi(cfg, ['payment-links']),
    prepare: async () => ({
      request: { method: 'POST', path: '/payment-links/', body: { name: 'Ticket', amount: '25', currencies: ['USDTERC20'] } },
      other: { method: 'POST', path: '/payment-links/', body: { name: 'Ticket', amount: '26', currencies: ['USDTERC20'] } },
      balances: [],
    }),
    effect: created('PAYLINK#'),
  },
  {
    endpoint: 'POST /payment-links/{link_id}/deactivate/',
    status: 200,
    api: () => routedApi(cfg, ['payment-links']),
    prepare: async (_t, call) => {
      const link = async () => (await call('POST', '/payment-links/', { body: { name: 'Ticket', amount: '25', currencies: ['USDTERC20'] } })).body.id as string;
      const [one, two] = [await link(), await link()];
      return {
        request: { method: 'POST', path: `/payment-links/${one}/deactivate/` },
        other: { method: 'POST', path: `/payment-links/${two}/deactivate/` },
        balances: [],
      };
    },
    // One of the two links is deactivated.
    effect: (before, after) => {
      const off = (s: Snapshot) =>
        Object.entries(s.items).filter(([sk, item]) => sk.startsWith('PAYLINK#') && (item as { deactivated_at?: string }).deactivated_at);
      expect([off(before).length, off(after).length]).toEqual([0, 1]);
    },
  },
  {
    endpoint: 'POST /transactions/export/',
    status: 202,
    api: () => createApi(transactionRoutes, transactionsRuntime(cfg)),
    prepare: async () => ({
      request: { method: 'POST', path: '/transactions/export/', body: { format: 'csv' } },
      other: { method: 'POST', path: '/transactions/export/', body: { format: 'json' } },
      balances: [],
    }),
    effect: created('EXPORT#'),
  },
  {
    endpoint: 'POST /custody/accounts',
    status: 201,
    api: () => custodyApi(cfg),
    prepare: async () => ({
      request: { method: 'POST', path: '/custody/accounts', body: { name: 'Treasury' } },
      other: { method: 'POST', path: '/custody/accounts', body: { name: 'Reserve' } },
      balances: [],
    }),
    effect: created('CUSTODY#'),
  },
  {
    endpoint: 'POST /custody/accounts/{accountId}/addresses/{blockchain}',
    status: 200,
    api: () => custodyApi(cfg),
    prepare: async (t, call) => {
      const [one, two] = [await custodyAccount(call, t.tenantId), await custodyAccount(call, t.tenantId)];
      return {
        request: { method: 'POST', path: `/custody/accounts/${one}/addresses/ETH` },
        other: { method: 'POST', path: `/custody/accounts/${two}/addresses/ETH` },
        balances: [],
      };
    },
    effect: created('CUSTODYADDR#'),
    completesAfter: true,
  },
  {
    endpoint: 'POST /custody/transfer',
    status: 200,
    api: () => custodyApi(cfg),
    prepare: async (t, call) => {
      const [from, to] = [await custodyAccount(call, t.tenantId, '100'), await custodyAccount(call, t.tenantId)];
      const body = (amount: number) => ({ from_account_id: from, to_account_id: to, blockchain: 'ETH', amount });
      return {
        request: { method: 'POST', path: '/custody/transfer', body: body(7) },
        other: { method: 'POST', path: '/custody/transfer', body: body(8) },
        balances: [
          [`custody:${from}`, 'USDTERC20'],
          [`custody:${to}`, 'USDTERC20'],
        ],
      };
    },
    effect: (before, after) => {
      expect(count(after, 'CUSTODYTX#') - count(before, 'CUSTODYTX#')).toBe(1);
      expect(Object.values(after.balances)).toEqual([
        { amount: '93', pending: '0', locked: '0' },
        { amount: '7', pending: '0', locked: '0' },
      ]);
    },
  },
  {
    endpoint: 'POST /custody/withdraw',
    status: 200,
    api: () => custodyApi(cfg),
    prepare: async (t, call) => {
      const id = await custodyAccount(call, t.tenantId, '100');
      const body = (amount: number) => ({ account_id: id, blockchain: 'ETH', amount, destination_address: DEST });
      return {
        request: { method: 'POST', path: '/custody/withdraw', body: body(20) },
        other: { method: 'POST', path: '/custody/withdraw', body: body(21) },
        balances: [[`custody:${id}`, 'USDTERC20']],
      };
    },
    effect: (before, after) => {
      expect(count(after, 'WITHDRAWAL#') - count(before, 'WITHDRAWAL#')).toBe(1);
      expect(Object.values(after.balances)).toEqual([{ amount: '80', pending: '0', locked: '20' }]);
    },
  },
  {
    endpoint: 'POST /custody/withdrawals/{withdrawalId}/cancel',
    status: 200,
    api: () => custodyApi(cfg),
    prepare: async (t, call) => {
      const id = await custodyAccount(call, t.tenantId, '100');
      const withdraw = async (amount: number): Promise<string> => {
        const made = await call('POST', '/custody/withdraw', { body: { account_id: id, blockchain: 'ETH', amount, destination_address: DEST } });
        expect(made.status).toBe(200);
        return made.body.withdrawal_id as string;
      };
      const [one, two] = [await withdraw(20), await withdraw(30)];
      return {
        request: { method: 'POST', path: `/custody/withdrawals/${one}/cancel` },
        other: { method: 'POST', path: `/custody/withdrawals/${two}/cancel` },
        balances: [[`custody:${id}`, 'USDTERC20']],
      };
    },
    // The cancel returns the first hold (20) to the account; the second withdrawal keeps its 30.
    effect: (before, after) => {
      expect(Object.values(before.balances)).toEqual([{ amount: '50', pending: '0', locked: '50' }]);
      expect(Object.values(after.balances)).toEqual([{ amount: '70', pending: '0', locked: '30' }]);
    },
  },
];

beforeAll(async () => {
  table = await startTestTable();
  await putFixedRates();
  trace = traceCalls();
  // A deployment serving ETH (an endpoint never dialled, a forwarder factory, the token contracts, a hot wallet).
  cfg = servingEth({
    HOT_WALLET_KEY_ID: 'idempotency-test-hot-wallet',
    FORWARDER_FACTORIES: JSON.stringify({ ETH: '0x1111111111111111111111111111111111111111' }),
  });
});

afterAll(async () => {
  trace?.stop();
  await table?.stop();
});

/** The items of each TransactWriteItems that completed an idempotency record: how many it wrote. */
function completions(calls: readonly TracedCall[]): number[] {
  return calls
    .filter((c) => c.command === 'TransactWriteItemsCommand')
    .map((c) => (c.input.TransactItems ?? []) as { Update?: { Key?: { sk?: string } } }[])
    .filter((items) => items.some((i) => String(i.Update?.Key?.sk).startsWith('IDEM#')))
    .map((items) => items.length);
}

it('the table below covers exactly the endpoints the routes mark idempotent', () => {
  expect(CASES.map((c) => c.endpoint).sort()).toEqual([...idempotentEndpoints()].sort());
});

describe.each(CASES)('$endpoint with Idempotency-Key', (c) => {
  it('replays the first answer for the same request, moving money once, and refuses the key for another request', async () => {
    const t = await tenantWithToken(`Idempotency ${c.endpoint}`);
    const call = caller(c.api(), () => t.bearer);
    const prepared = await c.prepare(t, call);
    const headers = { 'idempotency-key': `key:${c.endpoint.replace(/ /g, '_')}` };
    const send = (r: Request): Promise<Answer> => call(r.method, r.path, { ...(r.body === undefined ? {} : { body: r.body }), headers });
    const before = await snapshot(t.tenantId, prepared.balances);

    trace.reset();
    const first = await send(prepared.request);
    expect([first.status, first.headers['Idempotent-Replayed'], first.body?.error]).toEqual([c.status, undefined, undefined]);
    const [completion, ...more] = completions(trace.calls());
    expect([more, c.completesAfter ? completion === 1 : (completion ?? 0) > 1]).toEqual([[], true]);
    const after = await snapshot(t.tenantId, prepared.balances);
    c.effect(before, after);

    const again = await send(prepared.request);
    expect([again.status, again.headers['Idempotent-Replayed'], again.body]).toEqual([c.status, 'true', first.body]);
    expect(await snapshot(t.tenantId, prepared.balances)).toEqual(after);

    const reused = await send(prepared.other);
    expect([reused.status, reused.body.error?.code]).toEqual([422, 'idempotency_key_reused']);
    expect(await snapshot(t.tenantId, prepared.balances)).toEqual(after);
  });
});
