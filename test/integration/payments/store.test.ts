import { randomBytes, randomUUID } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { CURRENCIES, type CurrencyCode } from '../../../shared/domain/currencies.js';
import type { PaymentChange, PaymentState } from '../../../shared/domain/payments.js';
import { openPayment, quote, transition } from '../../../shared/domain/payments.js';
import { paymentEventRef } from '../../../shared/domain/payment-events.js';
import { db, tableName } from '../../../shared/store/client.js';
import { keys } from '../../../shared/store/keys.js';
import { dynamoPayments, paymentEventsOfItem } from '../../../shared/store/payments.js';
import type { Tenant } from '../../../shared/domain/tenant.js';
import type { PaymentQuery } from '../../../shared/usecases/payments/ports.js';
import { upgradeStoredPayments } from '../../../shared/usecases/payments/upgrade-stored.js';
import { TransactionConditionError, transactWrite } from '../../../shared/store/transact.js';
import { dayTotalUsd, paymentsTotalItem } from '../../../shared/store/usage.js';
import { carryLegacyDayTotals } from '../../../shared/store/usage-upgrade.js';
import { storedDecimal } from '../../../shared/store/values.js';
import { DAY_TOTAL_ATTRIBUTE } from '../../../shared/store/aggregate.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { aPayment, checkoutIdOf } from '../../support/fixtures/payments.js';

/**
 * Payments on DynamoDB Local: a payment's item holds its state, and its list entry (written with it) carries the
 * list indexes, so a status change rewrites no list index and keeps the item within one write unit; lists read the
 * entries, then the payments, and filter the status on the states; counts by status and currency come from the
 * statistics counters; payments stored before their entries existed are still read, listed and routed.
 */
let table: TestTable;
const T = randomUUID();

beforeAll(async () => {
  table = await startTestTable();
});
afterAll(async () => {
  await table.stop();
});

const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 12, minute));

function draft(code: CurrencyCode, price: string, orderId: string | null, createdAt: Date): PaymentChange {
  const currency = CURRENCIES[code];
  const q = quote({ price, priceCurrency: 'USD', currency, rates: { [code]: '1' }, feePercent: '1', isFeePaidByUser: false });
  const { network, token, decimals } = currency;
  const id = randomUUID();
  const { amountUsd, amountCrypto, priceCrypto, fee } = q;
  const fields = {
    id,
    tenantId: T,
    currency: code,
    network,
    token,
    decimals,
    priceAmount: price,
    amountUsd,
    amountCrypto,
    priceCrypto,
    fee,
    orderId,
    checkoutId: checkoutIdOf(id),
  };
  return openPayment(
    aPayment({ ...fields, address: `0x${randomBytes(20).toString('hex')}`, salt: `0x${randomBytes(32).toString('hex')}` }, createdAt),
    createdAt,
  );
}

const create = (code: CurrencyCode, price: string, orderId: string | null, minute: number): Promise<PaymentState> =>
  dynamoPayments.create({ change: draft(code, price, orderId, at(minute)), family: 'evm', dailyLimitUsd: null }, at(minute));

/** The TransactWriteItems of `work`, each with what DynamoDB Local says it consumed, per table and index. */
async function consumed(work: () => Promise<unknown>): Promise<ConsumedCapacity[]> {
  const seen: ConsumedCapacity[] = [];
  const name = 'testCapacityByIndex';
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
      const out = await next(args);
      seen.push(...(((out.output as { ConsumedCapacity?: ConsumedCapacity[] }).ConsumedCapacity ?? []) as ConsumedCapacity[]));
      return out;
    },
    { step: 'initialize', name, override: true },
  );
  try {
    await work();
  } finally {
    db().middlewareStack.remove(name);
  }
  return seen;
}

/** An item's size as DynamoDB counts it: names and values in bytes (numbers as stored text, close enough here). */
function itemBytes(item: Record<string, unknown>): number {
  let n = 0;
  for (const [name, value] of Object.entries(item)) {
    n += Buffer.byteLength(name);
    if (value instanceof Uint8Array) n += value.length;
    else n += Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));
  }
  return n;
}

describe('payments on the table', () => {
  const ids: Record<string, PaymentState> = {};

  beforeAll(async () => {
    // Seven payments a minute apart: amounts 10..70 USD, two networks, three order ids; then three cancelled.
    const plan: [string, CurrencyCode, string, string | null][] = [
      ['a', 'USDTERC20', '10', 'o-1'],
      ['b', 'USDTERC20', '20', 'o-2'],
      ['c', 'USDTPOLYGON', '30', 'o-1'],
      ['d', 'USDTERC20', '40', null],
      ['e', 'USDTPOLYGON', '50', 'o-3'],
      ['f', 'USDTERC20', '60', 'o-1'],
      ['g', 'USDCERC20', '70', null],
    ];
    for (const [i, [name, code, price, orderId]] of plan.entries()) ids[name] = await create(code, price, orderId, i);
    for (const name of ['b', 'c', 'f']) {
      const p = ids[name] as PaymentState;
      ids[name] = await dynamoPayments.save(p, transition(p, { kind: 'cancel' }, at(30)), at(30));
    }
  });

  const names = (rows: readonly PaymentState[]) => rows.map((p) => Object.entries(ids).find(([, q]) => q.id === p.id)?.[0]);
  const list = (q: Omit<PaymentQuery, 'tenantId' | 'take'> & { take?: number }) => dynamoPayments.list({ tenantId: T, take: 100, ...q });

  it('lists by time and by amount, with every filter, a status filter read on the states', async () => {
    expect(names(await list({ ordering: '-created_at' }))).toEqual(['g', 'f', 'e', 'd', 'c', 'b', 'a']);
    expect(names(await list({ ordering: 'amount', skip: 2, take: 3 }))).toEqual(['c', 'd', 'e']);
    expect(names(await list({ ordering: '-created_at', status: 'cancelled' }))).toEqual(['f', 'c', 'b']);
    expect(names(await list({ ordering: '-created_at', status: 'cancelled', skip: 1, take: 1 }))).toEqual(['c']);
    expect(names(await list({ ordering: '-amount', status: 'waiting', skip: 1 }))).toEqual(['e', 'd', 'a']);
    expect(names(await list({ ordering: '-created_at', status: 'waiting', network: 'ETH' }))).toEqual(['g', 'd', 'a']);
    expect(names(await list({ ordering: 'created_at', orderId: 'o-1', status: 'waiting' }))).toEqual(['a']);
    expect(names(await list({ ordering: 'created_at', currency: 'USDTPOLYGON' }))).toEqual(['c', 'e']);
    expect(names(await list({ ordering: 'created_at', amountMin: '20', amountMax: '45', createdBefore: at(2).toISOString() }))).toEqual(['b', 'c']);
    expect(names(await list({ ordering: 'created_at', status: 'completed' }))).toEqual([]);
  });

  it('counts by status, currency, network and token from the counters, and by any other filter from the entries', async () => {
    const count = (f: Omit<PaymentQuery, 'tenantId' | 'take' | 'ordering'>, bound = 1000) => dynamoPayments.countMatching({ tenantId: T, ...f }, bound);
    expect(await dynamoPayments.count(T)).toBe(7);
    expect(await count({ status: 'cancelled' })).toBe(3);
    expect(await count({ status: 'waiting', currency: 'USDTERC20' })).toBe(2);
    expect(await count({ network: 'POLYGON' })).toBe(2);
    expect(await count({ network: 'ETH', token: 'USDC' })).toBe(1);
    expect(await count({ orderId: 'o-1' })).toBe(3);
    expect(await count({ orderId: 'o-1', status: 'cancelled' })).toBe(2);
    expect(await count({ amountMin: '35' })).toBe(4);
    expect(await count({ amountMin: '35' }, 2)).toBe(2);
  });

  it('rewrites the entry when an edit changes the order id, and only then', async () => {
    const p = ids.d as PaymentState;
    let edited = p;
    const [reordered] = await consumed(
      async () => (edited = await dynamoPayments.save(p, transition(p, { kind: 'edit', changes: { orderId: 'o-9' } }, at(40)), at(40))),
    );
    ids.d = edited;
    expect(names(await list({ ordering: 'created_at', orderId: 'o-9' }))).toEqual(['d']);
    expect(names(await list({ ordering: 'created_at', orderId: 'o-9', status: 'waiting' }))).toEqual(['d']);
    const [described] = await consumed(async () => {
      ids.d = await dynamoPayments.save(edited, transition(edited, { kind: 'edit', changes: { orderDescription: 'two flat whites' } }, at(41)), at(41));
    });
    // The waiting payment's own copy in its work queue (gsi3) and its history record (gsi1) change with every save;
    // the list by amount (gsi2) holds only the entry.
    expect(Object.keys(reordered?.GlobalSecondaryIndexes ?? {}).sort()).toEqual(['gsi1', 'gsi2', 'gsi3']);
    expect(Object.keys(described?.GlobalSecondaryIndexes ?? {}).sort()).toEqual(['gsi1', 'gsi3']);
  });

  it('writes no list index on a status change, and keeps the payment and its work-queue copy within one write unit', async () => {
    let p = await create('USDTERC20', '25', 'o-4', 50);
    const sizes: number[] = [];
    const deposit = {
      id: `ETH:0x${'ab'.repeat(32)}:0`,
      currency: 'USDTERC20',
      amount: p.amountCrypto,
      amountBase: '25250000',
      txHash: `0x${'ab'.repeat(32)}`,
      logIndex: 0,
      blockNumber: 100,
      blockHash: `0x${'cd'.repeat(32)}`,
      confirmations: 1,
      detectedAt: at(51).toISOString(),
      status: 'pending' as const,
      late: false,
    };
    const steps: ((q: PaymentState) => PaymentChange)[] = [
      (q) => transition(q, { kind: 'deposit', deposit }, at(51)),
      (q) => transition(q, { kind: 'confirmations', byDeposit: { [deposit.id]: 12 }, confirmationsNeeded: 12, tolerancePercent: '0' }, at(52)),
      (q) => transition(q, { kind: 'sweep_started' }, at(53)),
    ];
    const capacities: ConsumedCapacity[] = [];
    for (const step of steps) {
      const change = step(p);
      capacities.push(...(await consumed(async () => (p = await dynamoPayments.save(p, change, at(54))))));
      const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.payment(T, p.id) }));
      expect(Item?.gsi3pk).toBe('PAYMENTS#OPEN#ETH');
      sizes.push(itemBytes(Item ?? {}));
    }
    expect(p.status).toBe('sending');
    for (const c of capacities) expect(Object.keys(c.GlobalSecondaryIndexes ?? {}).sort()).toEqual(['gsi1', 'gsi3']);
    // gsi1 holds the transaction-history record only: one unit, doubled for a transaction.
    for (const c of capacities) expect(c.GlobalSecondaryIndexes?.gsi1?.CapacityUnits).toBe(2);
    for (const bytes of sizes) expect(bytes).toBeLessThanOrEqual(1024);
  });

  it('reads, lists, routes and upgrades a payment stored before list entries: its own list keys and plainly deflated state', async () => {
    const change = draft('USDTERC20', '15', 'o-legacy', at(5));
    const p = { ...change.state, version: 1 };
    const legacy = {
      ...keys.payment(T, p.id),
      ...keys.paymentList(T, p.createdAt, p.id),
      ...keys.paymentAmountList(T, p.amountUsd, p.id),
      type: 'payment',
      version: 1,
      state: deflateRawSync(Buffer.from(JSON.stringify(p))),
      status: p.status,
      currency: p.currency,
      network: p.network,
      token: p.token,
      order_id: p.orderId,
      created_at: p.createdAt,
      amount_usd: p.amountUsd,
      events: change.events.map(paymentEventRef),
    };
    await db().send(new PutCommand({ TableName: tableName(), Item: legacy }));
    expect(await dynamoPayments.get(T, p.id)).toEqual(p);
    expect((await list({ ordering: 'created_at', orderId: 'o-legacy' })).map((q) => q.id)).toEqual([p.id]);
    expect(names(await list({ ordering: 'amount', take: 2 })).length).toBe(2);
    expect((await list({ ordering: 'amount', take: 1 }))[0]?.id).toBe(ids.a?.id);
    expect(paymentEventsOfItem(legacy).map((e) => e.type)).toEqual(change.events.map((e) => e.type));

    // A second one, saved by this code before the upgrade ran: its save dropped the list keys it carried.
    const other = draft('USDTERC20', '16', 'o-legacy-2', at(6));
    const q = { ...other.state, version: 1 };
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...legacy,
          ...keys.payment(T, q.id),
          ...keys.paymentList(T, q.createdAt, q.id),
          ...keys.paymentAmountList(T, q.amountUsd, q.id),
          state: deflateRawSync(Buffer.from(JSON.stringify(q))),
        },
      }),
    );
    await dynamoPayments.save(q, transition(q, { kind: 'cancel' }, at(7)), at(7));
    expect(await list({ ordering: 'created_at', orderId: 'o-legacy-2' })).toEqual([]);

    const upgrade = () =>
      upgradeStoredPayments(null, { tenants: { list: async () => [{ id: T } as Tenant] }, payments: dynamoPayments, carryDayTotals: carryLegacyDayTotals });
    expect(await upgrade()).toEqual([{ tenant_id: T, upgraded: 2, day_totals: 0 }]);
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.payment(T, p.id) }));
    expect([Item?.gsi1pk, Item?.state, Item?.packed instanceof Uint8Array]).toEqual([undefined, undefined, true]);
    // The same version: a save that read the payment before the upgrade still goes through.
    expect(await dynamoPayments.get(T, p.id)).toEqual(p);
    expect((await list({ ordering: 'created_at', orderId: 'o-legacy' })).map((r) => r.id)).toEqual([p.id]);
    expect((await list({ ordering: 'created_at', orderId: 'o-legacy-2', status: 'cancelled' })).map((r) => r.id)).toEqual([q.id]);
    expect(await upgrade()).toEqual([{ tenant_id: T, upgraded: 0, day_totals: 0 }]);
  });

  it('carries day totals kept on items of their own onto the usage items of their days, once, so the daily limit still counts them', async () => {
    const tenant = randomUUID();
    const today = new Date();
    const day = today.toISOString().slice(0, 10);
    const { pk, skPrefix } = keys.legacyPaymentDayPrefix(tenant);
    const legacyKey = (d: string) => ({ pk, sk: `${skPrefix}${d}` });
    const legacyDay = (d: string, total: string) =>
      db().send(new PutCommand({ TableName: tableName(), Item: { ...legacyKey(d), ttl: 1, [DAY_TOTAL_ATTRIBUTE]: storedDecimal(total) } }));
    await legacyDay(day, '1200.5');
    await legacyDay('2026-11-19', '80');
    // A creation of this version already added to today's usage item.
    await transactWrite([paymentsTotalItem(tenant, today, { amountUsd: '25.25', roomUsd: '1000' })]);
    const upgrade = () => upgradeStoredPayments(tenant, { tenants: { list: async () => [] }, payments: dynamoPayments, carryDayTotals: carryLegacyDayTotals });

    expect(await upgrade()).toEqual([{ tenant_id: tenant, upgraded: 0, day_totals: 2 }]);
    expect(await dayTotalUsd(tenant, today)).toBe('1225.75');
    expect(await dayTotalUsd(tenant, new Date('2026-11-19T18:00:00Z'))).toBe('80');
    const left = await db().send(new GetCommand({ TableName: tableName(), Key: legacyKey(day) }));
    expect(left.Item).toBeUndefined();
    // Carried once: a second run finds nothing, and the totals stay.
    expect(await upgrade()).toEqual([{ tenant_id: tenant, upgraded: 0, day_totals: 0 }]);
    expect(await dayTotalUsd(tenant, today)).toBe('1225.75');
    // The carried total counts against the daily limit: 1 USD more is refused at a limit of 1,226.74 and fits one of 1,226.75.
    await expect(transactWrite([paymentsTotalItem(tenant, today, { amountUsd: '1', roomUsd: '1225.74' })])).rejects.toBeInstanceOf(TransactionConditionError);
    await transactWrite([paymentsTotalItem(tenant, today, { amountUsd: '1', roomUsd: '1225.75' })]);
    expect(await dayTotalUsd(tenant, today)).toBe('1226.75');
  });
});
