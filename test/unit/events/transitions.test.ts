import { renderOpenApi } from '../../../scripts/openapi-document.js';
import { eventTransitions } from '../../../shared/http/openapi.js';
import { EVENTS, parseEventPayload, TENANT_EVENT_TYPES } from '../../../shared/domain/events.js';
import type { PaymentDraft } from '../../../shared/domain/payments.js';
import { familyEvent, openPayment, transition as paymentTransition } from '../../../shared/domain/payments.js';
import type { WithdrawalDraft, WithdrawalState } from '../../../shared/domain/withdrawals.js';
import { openWithdrawal, transition as withdrawalTransition } from '../../../shared/domain/withdrawals.js';
import { aPayment } from '../../support/fixtures/payments.js';
import { aWithdrawalDraft } from '../../support/fixtures/withdrawals.js';

const NOW = new Date('2026-01-01T00:00:00Z');
const LATER = new Date('2026-01-01T00:05:00Z');

const draft: WithdrawalDraft = aWithdrawalDraft();

describe('events of the withdrawal lifecycle', () => {
  const opened = openWithdrawal(draft, NOW);
  const pending: WithdrawalState = { ...opened.state, version: 1 };

  it('withdrawal.status_changed is sent on creation and on every status change, beside withdrawal_status_update', () => {
    expect(opened.events.map((e) => e.type)).toEqual([EVENTS.withdrawalCreated, EVENTS.withdrawalStatusUpdate, EVENTS.withdrawalStatusChanged]);
    const processing = withdrawalTransition(pending, { kind: 'dispatched' }, LATER);
    const changes = [
      processing,
      withdrawalTransition(processing.state, { kind: 'chain_confirmed', txHash: '0xdone' }, LATER),
      withdrawalTransition(processing.state, { kind: 'chain_failed', reason: 'reverted' }, LATER),
      withdrawalTransition(pending, { kind: 'cancel' }, LATER),
    ];
    for (const change of changes) {
      const types = change.events.map((e) => e.type);
      expect(types).toContain(EVENTS.withdrawalStatusUpdate);
      expect(types).toContain(EVENTS.withdrawalStatusChanged);
      expect(types).toContain(`withdrawal.${change.state.status}`);
      const changed = change.events.find((e) => e.type === EVENTS.withdrawalStatusChanged)!;
      expect(changed.payload).toMatchObject({ status: change.state.status });
      expect(new Set(change.events.map((e) => e.key)).size).toBe(change.events.length);
    }
  });

  it('withdrawal_status_update carries metadata.processed_at (spec 6.1), not updated_at', () => {
    const change = withdrawalTransition(pending, { kind: 'dispatched' }, LATER);
    for (const e of [...opened.events, ...change.events]) {
      expect(e.payload.metadata).toEqual({ processed_at: opened.events.includes(e) ? NOW.toISOString() : LATER.toISOString() });
      expect(parseEventPayload(e.type, e.payload)).toEqual(e.payload);
    }
  });
});

describe('events of the payment lifecycle', () => {
  it('payment.created carries previous_status null, and parses', () => {
    const p = aPayment();
    const d = Object.fromEntries(
      Object.entries(p).filter(
        ([k]) =>
          ![
            'status',
            'createdAt',
            'updatedAt',
            'transactionHash',
            'deposits',
            'flags',
            'merchantReceived',
            'merchantReceivedUsd',
            'sweepTxHash',
            'version',
          ].includes(k),
      ),
    ) as unknown as PaymentDraft;
    const { events } = openPayment(d, NOW);
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe(EVENTS.paymentCreated);
    expect(events[0]!.payload.previous_status).toBeNull();
    expect(parseEventPayload(events[0]!.type, events[0]!.payload)).toEqual(events[0]!.payload);
  });

  it('a cancelled payment is announced to variant-B subscribers as payment.failed with status cancelled', () => {
    expect(familyEvent('cancelled')).toBe(EVENTS.paymentFailed);
    const { events } = paymentTransition(aPayment(), { kind: 'cancel' }, LATER);
    const failed = events.find((e) => e.type === EVENTS.paymentFailed);
    expect(failed?.payload).toMatchObject({ status: 'cancelled', previous_status: 'waiting' });
    expect(events.map((e) => e.type)).toContain(EVENTS.paymentStatusUpdate);
  });
});

describe('the OpenAPI webhooks section', () => {
  type Webhook = { post: { summary: string; description: string; 'x-sent-on': string[]; requestBody: unknown } };
  const doc = JSON.parse(renderOpenApi()) as { webhooks?: Record<string, Webhook> };

  it('documents every webhook event of the catalogue, with the transitions that send it', () => {
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...TENANT_EVENT_TYPES].sort());
    const sentOn = (type: string) => doc.webhooks?.[type]?.post['x-sent-on'];
    expect(sentOn('payment.created')).toEqual(['payment created (-> waiting)', 'payment -> waiting']);
    expect(sentOn('payment.failed')).toEqual(['payment -> failed', 'payment -> cancelled']);
    expect(sentOn('payment_status_update')).toEqual(expect.arrayContaining(['payment -> confirming', 'payment -> cancelled', 'payment -> partially_paid']));
    expect(sentOn('withdrawal.status_changed')).toEqual([
      'withdrawal created (-> pending)',
      'withdrawal -> processing',
      'withdrawal -> completed',
      'withdrawal -> failed',
      'withdrawal -> cancelled',
      'withdrawal -> rejected',
    ]);
    expect(sentOn('withdrawal.created')).toEqual(['withdrawal created (-> pending)']);
    expect(sentOn('withdrawal.approved')).toEqual(['withdrawal approved in review (stays pending)']);
    expect(doc.webhooks?.['payment.failed']?.post.description).toMatch(/cancelled/);
    for (const type of TENANT_EVENT_TYPES) expect(doc.webhooks?.[type]?.post.requestBody).toBeDefined();
  });
});

describe('the documented transitions', () => {
  const table = new Map(eventTransitions().map(([t, events]) => [t, [...events].sort()]));
  const types = (events: readonly { type: string }[]) => events.map((e) => e.type).sort();

  it('are what the withdrawal and payment lifecycles send', () => {
    const opened = openWithdrawal(draft, NOW);
    expect(types(opened.events)).toEqual(table.get('withdrawal created (-> pending)'));
    const pending: WithdrawalState = { ...opened.state, version: 1 };
    const processing = withdrawalTransition(pending, { kind: 'dispatched' }, LATER);
    expect(types(processing.events)).toEqual(table.get('withdrawal -> processing'));
    expect(types(withdrawalTransition(processing.state, { kind: 'chain_confirmed', txHash: '0x1' }, LATER).events)).toEqual(
      table.get('withdrawal -> completed'),
    );
    expect(types(withdrawalTransition(processing.state, { kind: 'chain_failed', reason: 'x' }, LATER).events)).toEqual(table.get('withdrawal -> failed'));
    expect(types(withdrawalTransition(pending, { kind: 'cancel' }, LATER).events)).toEqual(table.get('withdrawal -> cancelled'));
    const held: WithdrawalState = { ...pending, review: { reasons: ['amount_over_threshold'], decision: null, decidedBy: null, decidedAt: null, note: null } };
    expect(types(withdrawalTransition(held, { kind: 'review_approved', by: 'ops' }, LATER).events)).toEqual(
      table.get('withdrawal approved in review (stays pending)'),
    );
    expect(types(withdrawalTransition(held, { kind: 'review_rejected', by: 'ops', note: 'unknown payee' }, LATER).events)).toEqual(
      table.get('withdrawal -> rejected'),
    );
    expect(types(paymentTransition(aPayment(), { kind: 'cancel' }, LATER).events)).toEqual(table.get('payment -> cancelled'));
    expect(types(paymentTransition(aPayment(), { kind: 'expire' }, LATER).events)).toEqual(table.get('payment -> expired'));
  });
});
