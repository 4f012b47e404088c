import { randomBytes, randomUUID } from 'node:crypto';
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { CURRENCIES, type CurrencyCode } from '../../../shared/domain/currencies.js';
import type { PaymentChange, PaymentState } from '../../../shared/domain/payments.js';
import { openPayment, transition } from '../../../shared/domain/payments.js';
import { quote } from '../../../shared/domain/payment-quote.js';
import { db, tableName } from '../../../shared/store/client.js';
import { keys } from '../../../shared/store/keys.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { messageBody } from '../../../shared/store/outbox.js';
import { outboxChange } from '../../support/outbox.js';
import type { PaymentQuery } from '../../../shared/usecases/payments/ports.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { aPayment, checkoutIdOf } from '../../support/fixtures/payments.js';

/**
 * Payments on DynamoDB Local: a payment's item holds its state, and its list entry (written with it) carries the
 * list indexes, so a status change rewrites no list index and keeps the item within one write unit; lists read the
 * entries, then the payments, and filter the status on the states; counts by status and currency come from the
 * statistics counters; each change's events are one outbox item of its own transaction.
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

  it("writes a change's events in one outbox item of the change's own transaction, each under its natural id, within one write unit", async () => {
    const p = await create('USDTERC20', '35', 'o-5', 55);
    const created = await outboxChange(`payment:${p.id}:created`);
    expect(created.map((e) => [e.eventId, e.type, e.occurredAt])).toEqual([[`payment:${p.id}:created`, 'payment.created', p.updatedAt]]);
    const deposit = {
      id: `ETH:0x${'ef'.repeat(32)}:0`,
      currency: 'USDTERC20',
      amount: p.amountCrypto,
      amountBase: '35350000',
      txHash: `0x${'ef'.repeat(32)}`,
      logIndex: 0,
      blockNumber: 101,
      blockHash: `0x${'cd'.repeat(32)}`,
      confirmations: 1,
      detectedAt: at(56).toISOString(),
      status: 'pending' as const,
      late: false,
    };
    const change = transition(p, { kind: 'deposit', deposit }, at(56));
    const [capacity] = await consumed(() => dynamoPayments.save(p, change, at(57)));
    const events = await outboxChange(`payment:${p.id}:deposit:${deposit.id}:2`);
    // Every event of the change, in its order, with the payload the transition announced and the callback URL.
    expect(events.map((e) => e.eventId)).toEqual(change.events.map((e) => `payment:${p.id}:${e.key}`));
    expect(events.map((e) => JSON.parse(messageBody(e)).payload)).toEqual(
      change.events.map((e) => JSON.parse(JSON.stringify({ ...e.payload, callback_url: p.callbackUrl }))),
    );
    expect(new Set(events.map((e) => e.occurredAt))).toEqual(new Set([at(56).toISOString()]));
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.outbox(`payment:${p.id}:deposit:${deposit.id}:2`) }));
    expect(itemBytes(Item ?? {})).toBeLessThanOrEqual(1024);
    expect(capacity?.CapacityUnits).toBeGreaterThan(0);
    // A replay of the change (its outbox item included) is refused: the version moved.
    await expect(dynamoPayments.save(p, change, at(57))).rejects.toThrow(/changed meanwhile/);
    expect(await outboxChange(`payment:${p.id}:deposit:${deposit.id}:2`)).toEqual(events);
  });
});
