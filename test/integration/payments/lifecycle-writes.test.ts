import { randomBytes, randomUUID } from 'node:crypto';
import { CURRENCIES } from '../../../shared/domain/currencies.js';
import type { PaymentChange, PaymentState } from '../../../shared/domain/payments.js';
import { openPayment, transition } from '../../../shared/domain/payments.js';
import { quote } from '../../../shared/domain/payment-quote.js';
import { traceCalls, type CallTrace } from '../../../shared/store/call-trace.js';
import { messageBody } from '../../../shared/store/outbox.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { dynamoWebhookDeliveries } from '../../../shared/store/webhooks/deliveries.js';
import { dynamoWebhookAttempts } from '../../../shared/store/webhooks/attempts.js';
import { routeEvents } from '../../../shared/usecases/events/route-events.js';
import { handleWebhookMessage, variantADeliveryId } from '../../../shared/usecases/webhooks/deliver.js';
import { FakeQueueSender, RecordingLog } from '../../support/fakes/events.js';
import { createSettings } from '../../../shared/usecases/webhooks/create-settings.js';
import { createHttpSender } from '../../../shared/webhooks/http-sender.js';
import { VirtualClock } from '../../support/clock.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { aPayment, checkoutIdOf } from '../../support/fixtures/payments.js';
import { outboxChanges } from '../../support/outbox.js';
import { unitsOf, writtenItems } from '../../support/write-units.js';
import { fakeSecretBox, startReceiver, storeDeps, VirtualQueue, type Receiver } from '../webhooks/support.js';

/**
 * The table writes of one payment's lifecycle, counted item by item as DynamoDB bills them (test/support/write-units.ts):
 * creation, the deposit (confirming), its confirmations (confirmed), the sweep (sending), its completion with the
 * merchant credited, and the webhooks of every event routed as the event router does (one webhook-delivery message a
 * change) and delivered to a receiver that answers 200 at once. The figure is
 * deterministic; it fails if an item grows past a write unit or a write comes back. docs/benchmarks.md ("Writes of
 * one payment") lists the items.
 */
let table: TestTable;
let receiver: Receiver;
let trace: CallTrace;
const clock = new VirtualClock(Date.parse('2026-11-20T12:00:00.000Z'));
const T = randomUUID();

beforeAll(async () => {
  table = await startTestTable('payment-lifecycle-writes');
  receiver = await startReceiver(
    () => 200,
    () => clock.now().getTime(),
  );
  trace = traceCalls();
});
afterAll(async () => {
  trace?.stop();
  await receiver?.close();
  await table?.stop();
});

function draft(createdAt: Date): PaymentChange {
  const currency = CURRENCIES.USDTERC20;
  const q = quote({ price: '25', priceCurrency: 'USD', currency, rates: { USDTERC20: '1' }, feePercent: '1', isFeePaidByUser: false });
  const id = randomUUID();
  const { network, token, decimals } = currency;
  return openPayment(
    aPayment(
      {
        id,
        tenantId: T,
        currency: 'USDTERC20',
        network,
        token,
        decimals,
        priceAmount: '25',
        amountUsd: q.amountUsd,
        amountCrypto: q.amountCrypto,
        priceCrypto: q.priceCrypto,
        fee: q.fee,
        orderId: null,
        checkoutId: checkoutIdOf(id),
        address: `0x${randomBytes(20).toString('hex')}`,
        salt: `0x${randomBytes(32).toString('hex')}`,
      },
      createdAt,
    ),
    createdAt,
  );
}

describe('the writes of one payment lifecycle', () => {
  it('are the items listed, each within one write unit: 64 units of transactions and 3 units a webhook', async () => {
    const deps = storeDeps({ clock, queue: new VirtualQueue(clock), send: createHttpSender({ policy: { allowLoopback: true } }), secrets: fakeSecretBox });
    await createSettings({ tenantId: T, credential: 'test' }, { callback_url: receiver.url }, clock.now(), deps);
    const at = (s: number) => new Date(clock.now().getTime() + s * 1000);

    trace.reset();
    let p = await dynamoPayments.create({ change: draft(at(0)), family: 'evm', dailyLimitUsd: null }, at(0));
    const hash = `0x${randomBytes(32).toString('hex')}`;
    const deposit = {
      id: `ETH:${hash}:0`,
      currency: 'USDTERC20',
      amount: p.amountCrypto,
      amountBase: '25250000',
      txHash: hash,
      logIndex: 0,
      blockNumber: 100,
      blockHash: `0x${'cd'.repeat(32)}`,
      confirmations: 1,
      detectedAt: at(10).toISOString(),
      status: 'pending' as const,
      late: false,
    };
    const steps: ((q: PaymentState, now: Date) => PaymentChange)[] = [
      (q, now) => transition(q, { kind: 'deposit', deposit }, now),
      (q, now) => transition(q, { kind: 'confirmations', byDeposit: { [deposit.id]: 12 }, confirmationsNeeded: 12, tolerancePercent: '0' }, now),
      (q, now) => transition(q, { kind: 'sweep_started' }, now),
      (q, now) => transition(q, { kind: 'sweep_completed', txHash: `0x${randomBytes(32).toString('hex')}`, usdRate: null }, now),
    ];
    for (const [i, step] of steps.entries()) p = await dynamoPayments.save(p, step(p, at(10 * (i + 1))), at(10 * (i + 1)));
    expect(p.status).toBe('completed');
    const payment = await writtenItems(trace.calls());

    trace.reset();
    const changes = await outboxChanges(`payment:${p.id}:`);
    const events = changes.flat();
    // As the event router sends them: the webhook events of one change (one outbox item) in one message.
    const queue = new FakeQueueSender();
    const records = changes.flatMap((change, i) => change.map((event) => ({ id: `record-${i}`, event, body: messageBody(event) })));
    expect([...(await routeEvents(records, { queue, log: new RecordingLog() }))]).toEqual([]);
    const messages = queue.sentTo('webhook-delivery');
    expect(messages).toHaveLength(changes.length);
    for (const m of messages) expect(await handleWebhookMessage(m.body, deps)).toBe('done');
    const webhooks = await writtenItems(trace.calls());

    // Every webhook event delivered once and recorded: the delivery read back whole, its attempt logged with the body.
    const delivered = events.filter((e) => receiver.received.some((r) => r.headers['webhook-id'] === e.eventId));
    expect(delivered.length).toBeGreaterThanOrEqual(6);
    for (const e of delivered) {
      const d = await dynamoWebhookDeliveries.get(T, variantADeliveryId(e.eventId));
      expect(d).toMatchObject({ deliveryId: variantADeliveryId(e.eventId), eventId: e.eventId, webhookId: e.eventId, status: 'succeeded', attempts: 1 });
      expect(receiver.received.find((r) => r.headers['webhook-id'] === e.eventId)?.body).toBe(d?.body);
    }
    const logs = await dynamoWebhookAttempts.list(T, new Date(0), 100, null);
    expect(logs.items.map((l) => l.deliveryId).sort()).toEqual(delivered.map((e) => variantADeliveryId(e.eventId)).sort());
    for (const l of logs.items) expect(l.requestBody).toBe(receiver.received.find((r) => r.headers['webhook-id'] === l.eventId)?.body);

    // Every item within one write unit (the figure below counts each as many units as it has started KB).
    const over = [...payment, ...webhooks].filter((i) => i.bytes > 1024).map((i) => `${i.command} ${i.sk} ${i.bytes} B`);
    expect(over).toEqual([]);
    // The payment's own transactions: creation (8 items) and four changes (5, 5, 5, 9), 2 units an item.
    expect(payment.map((i) => i.sk.replace(/#.*/, ''))).toEqual(PAYMENT_ITEMS);
    expect(unitsOf(payment)).toBe(PAYMENT_ITEMS.length * 2);
    // Per webhook: the delivery created holding its first attempt's lease, its outcome, the attempt's log line; 1 unit each.
    expect(delivered.map((e) => e.type).sort()).toEqual(['deposit_merged', 'deposit_received', ...Array<string>(4).fill('payment_status_update')]);
    expect(webhooks.map((i) => i.command).sort()).toEqual([
      ...Array<string>(delivered.length * 2).fill('Put'),
      ...Array<string>(delivered.length).fill('Update'),
    ]);
    expect(unitsOf(webhooks)).toBe(delivered.length * 3);
  });
});

/** The items of the payment's own transactions, in order (sk prefixes; the checkout and address items have their own pk). */
const CHANGE = ['PAYMENT', 'TXN', 'TXSTATS', 'TXSTATS', 'OUTBOX'];
const PAYMENT_ITEMS = [
  ...['PAYMENT', 'ADDRESS', 'CHECKOUT', 'PAYLIST', 'TXN', 'TXSTATS', 'TXSTATS', 'OUTBOX'],
  ...CHANGE,
  ...CHANGE,
  ...CHANGE,
  ...['JOURNAL', 'BAL', 'POST', 'BALANCE', 'OUTBOX', 'PAYMENT', 'TXN', 'TXSTATS', 'TXSTATS'],
];
