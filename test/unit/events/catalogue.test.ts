import { existsSync } from 'node:fs';
import type { ChainTx, ChainTxEvent } from '../../../shared/domain/chain-tx.js';
import { transition as chainTxTransition } from '../../../shared/domain/chain-tx.js';
import type { EventType } from '../../../shared/domain/events.js';
import {
  CHAIN_RESULT_EVENTS,
  chainResultOf,
  EVENT_CATALOGUE,
  EVENT_ROUTES,
  EVENT_TYPES,
  EVENTS,
  eventDraft,
  InvalidEventError,
  parseEventPayload,
  parseRoutedEvent,
  queuesFor,
  TENANT_EVENT_TYPES,
  withdrawalFamilyEvent,
} from '../../../shared/domain/events.js';
import type { Deposit, PaymentEvent, PaymentState } from '../../../shared/domain/payments.js';
import { statusUpdatePayload, transition as paymentTransition } from '../../../shared/domain/payments.js';
import { QUEUE_NAMES } from '../../../shared/domain/queues.js';
import { DELIVERY_EVENTS, SUBSCRIPTION_EVENTS } from '../../../shared/domain/webhooks.js';
import type { WithdrawalState, WithdrawalStatus } from '../../../shared/domain/withdrawals.js';
import { withdrawalPayload } from '../../../shared/domain/withdrawals.js';
import { emit } from '../../../shared/store/outbox.js';
import { requestChainTx } from '../../../shared/usecases/chain-tx/request-chain-tx.js';
import { queueTriggerOf, WORKER_FUNCTIONS } from '../../../infra/definition.js';
import { aDeposit, aPayment } from '../../support/fixtures/payments.js';
import { aWithdrawal } from '../../support/fixtures/withdrawals.js';

const NOW = new Date('2026-01-01T00:00:00Z');
const TENANT_VISIBLE = [...DELIVERY_EVENTS, ...SUBSCRIPTION_EVENTS.filter((t) => !t.endsWith('.all'))];
const INTERNAL = ['chain_tx.requested', 'chain_tx.confirmed', 'chain_tx.failed', 'wallet_transfer.accepted', 'transaction_export.requested'];

describe('the event catalogue', () => {
  it('defines every tenant-visible type (6.1 and 6.2 but `.all`) once, consumed by webhook-delivery', () => {
    for (const type of TENANT_VISIBLE) {
      expect(EVENT_CATALOGUE).toHaveProperty([type]);
      const definition = EVENT_CATALOGUE[type as EventType];
      // A payment's creation also wakes its network's scanner.
      const consumers = type === EVENTS.paymentCreated ? ['webhook-delivery', 'scanner-wake'] : ['webhook-delivery'];
      expect([type, definition.audience, definition.consumers]).toEqual([type, 'tenant', consumers]);
    }
    expect([...TENANT_EVENT_TYPES].sort()).toEqual([...TENANT_VISIBLE].sort());
    for (const all of SUBSCRIPTION_EVENTS.filter((t) => t.endsWith('.all'))) expect(Object.hasOwn(EVENT_CATALOGUE, all)).toBe(false);
  });

  it('defines the internal chain-transaction events with their consumers', () => {
    for (const type of INTERNAL) expect(EVENT_CATALOGUE[type as EventType].audience).toBe('internal');
    // A request also wakes its network's chain-tx follower.
    expect(EVENT_CATALOGUE['chain_tx.requested'].consumers).toEqual(['transfers', 'follower-wake']);
    expect(EVENT_CATALOGUE['chain_tx.confirmed'].consumers).toEqual(['chain-results']);
    expect(EVENT_CATALOGUE['chain_tx.failed'].consumers).toEqual(['chain-results']);
    expect(EVENT_CATALOGUE['wallet_transfer.accepted'].consumers).toEqual(['wallet-transfers']);
    expect(EVENT_CATALOGUE['transaction_export.requested'].consumers).toEqual(['transaction-exports']);
    expect([...EVENT_TYPES].sort()).toEqual([...TENANT_VISIBLE, ...INTERNAL].sort());
  });

  it('names the withdrawal family event of each status', () => {
    expect(['pending', 'processing', 'completed', 'failed', 'cancelled', 'all', 'created'].map(withdrawalFamilyEvent)).toEqual([
      null,
      EVENTS.withdrawalProcessing,
      EVENTS.withdrawalCompleted,
      EVENTS.withdrawalFailed,
      EVENTS.withdrawalCancelled,
      null,
      null,
    ]);
  });

  it('names every type in EVENTS exactly once', () => {
    expect(Object.values(EVENTS).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('names only queues that exist, each consumed by a worker of infra/definition.ts', () => {
    const consumed = new Set(WORKER_FUNCTIONS.flatMap((w) => queueTriggerOf(w.trigger)?.queue ?? []));
    for (const type of EVENT_TYPES) {
      for (const queue of EVENT_CATALOGUE[type].consumers) {
        expect(QUEUE_NAMES).toContain(queue);
        expect([type, consumed.has(queue)]).toEqual([type, true]);
      }
    }
    expect(WORKER_FUNCTIONS.find((w) => w.name === 'chain-results')).toMatchObject({
      entry: 'functions/chain-results/handler.ts',
      trigger: { kind: 'queue', queue: 'chain-results' },
    });
  });
});

describe("the event router's table", () => {
  it('is derived from the catalogue (no hand-written table is left)', () => {
    expect(EVENT_ROUTES).toEqual(Object.fromEntries(EVENT_TYPES.map((t) => [t, EVENT_CATALOGUE[t].consumers])));
    for (const type of EVENT_TYPES) expect(queuesFor(type)).toBe(EVENT_CATALOGUE[type].consumers);
    expect(existsSync(new URL('../../../functions/event-router/routes.ts', import.meta.url))).toBe(false);
  });

  it('routes nothing for unknown types, inherited names or `.all` subscriptions', () => {
    for (const type of ['internal.unknown', 'toString', 'constructor', '__proto__', 'payment.all', '']) expect(queuesFor(type)).toEqual([]);
  });
});

describe('payload schemas', () => {
  it('refuse a payload that violates its schema, and unknown types', () => {
    const good = {
      transaction_id: 'p1',
      deposit_id: 'd1',
      amount: '25.10',
      currency: 'USDTERC20',
      transaction_hash: '0xab',
      confirmations: 1,
      blockchain_network: 'ETH',
    };
    expect(parseEventPayload(EVENTS.depositReceived, good)).toEqual(good);
    expect(() => parseEventPayload(EVENTS.depositReceived, { ...good, amount: 25.1 })).toThrow(InvalidEventError);
    expect(() => parseEventPayload(EVENTS.depositReceived, { ...good, amount: 'lots' })).toThrow(/amount: must be a decimal string/);
    expect(() => parseEventPayload(EVENTS.chainTxRequested, { request_id: 'ETH:x', network: 'ETH', reference: 'x' })).toThrow(/purpose/);
    expect(() => parseEventPayload('payment.all', {})).toThrow(/not in the event catalogue/);
    expect(() =>
      emit('t1', EVENTS.withdrawalCompleted, {
        withdrawal_id: 'w1',
        status: 'completed',
        previous_status: 'processing',
        amount: 'ten',
        currency: 'USDTERC20',
        address: '0x1',
      }),
    ).toThrow(InvalidEventError);
  });

  it('are checked by the compiler where producers write them', () => {
    // @ts-expect-error: amounts are decimal strings, and `purpose` is required.
    const wrong = eventDraft(EVENTS.chainTxRequested, 'k', { request_id: 'ETH:x', network: 'ETH', reference: 'x', amount: 1 });
    expect(() => parseEventPayload(wrong.type, wrong.payload)).toThrow(InvalidEventError);
    const right = eventDraft(EVENTS.chainTxRequested, 'k', { request_id: 'ETH:x', network: 'ETH', reference: 'x', purpose: 'sweep' });
    expect(parseEventPayload(right.type, right.payload)).toEqual(right.payload);
  });

  it('keep fields they do not name (callback_url, flags, metadata), so no event loses data', () => {
    const payload = {
      request_id: 'ETH:x',
      network: 'ETH',
      reference: 'x',
      purpose: 'sweep',
      callback_url: 'https://example.com/cb',
      flags: ['overpaid'],
      metadata: { a: 1 },
    };
    expect(parseEventPayload(EVENTS.chainTxRequested, payload)).toEqual(payload);
  });
});

/* ------------------------------------------------------------ real producer payloads */

const payment = (over: Partial<PaymentState> = {}): PaymentState => aPayment(over, NOW);
const deposit = (id: string, amount: string): Deposit => aDeposit(id, amount, {}, NOW);

/** As the payment and withdrawal stores write them: the domain's payload plus the object's callback_url. */
const written = (events: readonly { type: string; payload: Readonly<Record<string, unknown>> }[], callbackUrl: string | null) =>
  events.map((e) => ({ type: e.type, payload: { ...e.payload, callback_url: callbackUrl } }));

function paymentLifecycle(): { type: string; payload: Record<string, unknown> }[] {
  const events: PaymentEvent[] = [{ type: 'payment.created', key: 'created', payload: statusUpdatePayload(payment(), null) }];
  let p = payment();
  const step = (fact: Parameters<typeof paymentTransition>[1]) => {
    const t = paymentTransition(p, fact, NOW);
    events.push(...t.events);
    p = t.state;
  };
  step({ kind: 'deposit', deposit: deposit('d1', '30') });
  step({ kind: 'confirmations', byDeposit: { d1: 2 }, confirmationsNeeded: 2, tolerancePercent: '0' });
  step({ kind: 'sweep_started' });
  step({ kind: 'sweep_failed' });
  step({ kind: 'sweep_started' });
  step({ kind: 'sweep_completed', txHash: '0xsweep', usdRate: '1' });
  const expired = paymentTransition(payment({ id: 'p2' }), { kind: 'expire' }, NOW);
  const cancelled = paymentTransition(payment({ id: 'p3', callbackUrl: null }), { kind: 'cancel' }, NOW);
  return [...written(events, 'https://shop.example/cb'), ...written(expired.events, 'https://shop.example/cb'), ...written(cancelled.events, null)];
}

const withdrawal = (status: WithdrawalStatus, over: Partial<WithdrawalState> = {}): WithdrawalState => aWithdrawal(status, over, NOW);

function withdrawalEvents(): { type: string; payload: Record<string, unknown> }[] {
  const created = withdrawalPayload(withdrawal('pending'), null);
  const moves: [WithdrawalStatus, WithdrawalStatus, Partial<WithdrawalState>][] = [
    ['pending', 'processing', {}],
    ['processing', 'completed', { transactionHash: '0xdone' }],
    ['processing', 'failed', { failureReason: 'the chain transaction failed' }],
    ['pending', 'cancelled', {}],
  ];
  return written(
    [
      { type: 'withdrawal.created', payload: created },
      { type: 'withdrawal_status_update', payload: created },
      ...moves.flatMap(([from, to, over]) => {
        const payload = withdrawalPayload(withdrawal(to, over), from);
        return [
          { type: 'withdrawal_status_update', payload },
          { type: `withdrawal.${to}`, payload },
        ];
      }),
    ],
    'https://shop.example/w',
  );
}

const freshTx = (): ChainTx => ({
  requestId: 'ETH:payment:t1:p1',
  network: 'ETH',
  reference: 'payment:t1:p1',
  purpose: 'sweep',
  tenantId: 't1',
  wallet: { keyId: 'k', address: '0x0000000000000000000000000000000000000001' },
  to: '0x0000000000000000000000000000000000000002',
  data: '0x',
  value: 0n,
  status: 'queued',
  attempts: [],
  createdAt: NOW.toISOString(),
  updatedAt: NOW.toISOString(),
  version: 0,
});

function chainTxEvents(): { type: string; payload: Record<string, unknown> }[] {
  const attempt = {
    hash: `0x${'a'.repeat(64)}`,
    raw: '0x02',
    fees: { type: 2 as const, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n },
    gasLimit: 21000n,
    signedAt: NOW.toISOString(),
  };
  let tx = freshTx();
  for (const step of [{ type: 'nonce_allocated' as const, nonce: 7 }, { type: 'signed' as const, attempt }, { type: 'broadcast' as const }])
    tx = chainTxTransition(tx, step, NOW).state;
  const events: ChainTxEvent[] = [
    ...chainTxTransition(tx, { type: 'mined', mined: { hash: attempt.hash, blockNumber: 12, status: 1, gasUsed: 50_000n } }, NOW).events,
    ...chainTxTransition(tx, { type: 'mined', mined: { hash: attempt.hash, blockNumber: 12, status: 0, gasUsed: 50_000n } }, NOW).events,
    ...chainTxTransition(tx, { type: 'dropped', failure: 'nonce used by another transaction' }, NOW).events,
  ];
  return events.map((e) => ({ type: e.type, payload: { ...e.payload } }));
}

describe('what producers write today parses', () => {
  it('payments: payment_status_update, the payment.* family, deposit_received and deposit_merged', () => {
    const events = paymentLifecycle();
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set([
        'payment.created',
        'payment_status_update',
        'deposit_received',
        'payment.processing',
        'deposit_merged',
        'payment.completed',
        'payment.expired',
        'payment.failed',
      ]),
    );
    for (const e of events) expect(parseEventPayload(e.type, e.payload)).toEqual(e.payload);
  });

  it('withdrawals: withdrawal_status_update and the withdrawal.* family', () => {
    for (const e of withdrawalEvents()) expect(parseEventPayload(e.type, e.payload)).toEqual(e.payload);
  });

  it('the chain-tx engine: chain_tx.confirmed and chain_tx.failed (reverted, dropped), and requestChainTx: chain_tx.requested', async () => {
    const events = chainTxEvents();
    expect(events.map((e) => e.type)).toEqual(['chain_tx.confirmed', 'chain_tx.failed', 'chain_tx.failed']);
    for (const e of events) expect(parseEventPayload(e.type, e.payload)).toEqual(e.payload);

    const announced: { eventType: string; payload: Record<string, unknown> }[] = [];
    const store = {
      create: async (tx: ChainTx, announce?: { eventType: string; payload: Record<string, unknown> }) => {
        if (announce) announced.push({ ...announce });
        return { ...tx, version: 1 };
      },
    };
    const wallet = { keyId: 'k', address: '0x0000000000000000000000000000000000000001' };
    await requestChainTx(
      { network: 'ETH', wallet, to: '0x0000000000000000000000000000000000000002', purpose: 'withdrawal', reference: 'w1', tenantId: 't1' },
      { store: store as never, clock: () => NOW },
    );
    expect(announced).toEqual([{ eventType: 'chain_tx.requested', payload: { request_id: 'ETH:w1', network: 'ETH', reference: 'w1', purpose: 'withdrawal' } }]);
    expect(parseEventPayload(EVENTS.chainTxRequested, announced[0]?.payload)).toEqual(announced[0]?.payload);
  });

  it('security events, as the webhook use cases write them', () => {
    const login = { client_id: 'gc_1', success: false, reason: 'invalid_client_secret', attempted_at: NOW.toISOString() };
    expect(parseEventPayload(EVENTS.securityLoginAttempt, login)).toEqual(login);
    const settings = { setting: 'webhooks', credential: 'api_key', action: 'subscription_created', subscription_id: 's1' };
    expect(parseEventPayload(EVENTS.securitySettingsChanged, settings)).toEqual(settings);
  });
});

describe('routed messages and chain results', () => {
  const message = (type: string, payload: Record<string, unknown>) => ({ event_id: 'e1', tenant_id: 't1', type, occurred_at: NOW.toISOString(), payload });
  const result = (txHash: string | null) => ({ request_id: 'ETH:w1', network: 'ETH', reference: 'w1', purpose: 'withdrawal', tx_hash: txHash });

  it('parse with the catalogue schema of their type, refusing other types and broken envelopes', () => {
    const parsed = parseRoutedEvent(message('chain_tx.confirmed', result('0xabc')), CHAIN_RESULT_EVENTS);
    expect(parsed).toMatchObject({ type: 'chain_tx.confirmed', tenant_id: 't1', payload: { reference: 'w1', tx_hash: '0xabc' } });
    expect(() =>
      parseRoutedEvent(message('chain_tx.requested', { request_id: 'r', network: 'ETH', reference: 'w1', purpose: 'x' }), CHAIN_RESULT_EVENTS),
    ).toThrow(/not one of/);
    expect(() => parseRoutedEvent({ type: 'chain_tx.confirmed', payload: result('0xabc') }, CHAIN_RESULT_EVENTS)).toThrow(InvalidEventError);
    expect(() => parseRoutedEvent(message('chain_tx.failed', { reference: 'w1' }), CHAIN_RESULT_EVENTS)).toThrow(/request_id/);
  });

  it('a chain result is a success only when confirmed with a mined hash', () => {
    expect(chainResultOf({ type: 'chain_tx.confirmed', payload: result('0xabc') })).toEqual({ ok: true, txHash: '0xabc' });
    expect(chainResultOf({ type: 'chain_tx.confirmed', payload: result(null) })).toEqual({ ok: false, failure: null });
    expect(chainResultOf({ type: 'chain_tx.failed', payload: { ...result('0xabc'), failure: 'reverted' } })).toEqual({ ok: false, failure: 'reverted' });
  });
});
