import type { OutboxEvent } from '../../../shared/domain/events.js';
import { EVENTS } from '../../../shared/domain/events.js';
import { changeMessageBody } from '../../../shared/domain/webhooks.js';
import type { RoutableRecord } from '../../../shared/usecases/events/route-events.js';
import { routeEvents } from '../../../shared/usecases/events/route-events.js';
import { FakeQueueSender, RecordingLog } from '../../support/fakes/events.js';

const event = (eventId: string, type: string, payload: Record<string, unknown> = {}): OutboxEvent => ({
  eventId,
  tenantId: 't1',
  type,
  occurredAt: '2026-01-01T00:00:00.000Z',
  payload,
});
const routable = (id: string, e: OutboxEvent): RoutableRecord => ({ id, event: e, body: JSON.stringify({ event_id: e.eventId, type: e.type }) });

describe('routeEvents (the event router use case)', () => {
  it('sends each event to the queues of its type in the catalogue, one batch call per queue, with the event in the attributes', async () => {
    const queue = new FakeQueueSender();
    const log = new RecordingLog();
    const records = [
      routable('s1', event('e1', EVENTS.paymentStatusUpdate)),
      routable('s2', event('e2', EVENTS.chainTxRequested)),
      routable('s3', event('e3', EVENTS.chainTxConfirmed)),
      routable('s4', event('e4', EVENTS.withdrawalCompleted)),
      routable('s5', event('e5', EVENTS.chainTxFailed)),
    ];
    const failed = await routeEvents(records, { queue, log });
    expect([...failed]).toEqual([]);
    expect(queue.calls.map((c) => c.queue)).toEqual(['webhook-delivery', 'transfers', 'follower-wake', 'chain-results']);
    expect(queue.sentTo('webhook-delivery').map((m) => m.id)).toEqual(['s1', 's4']);
    // A request goes to chain-tx, and wakes the follower of its network.
    expect(queue.sentTo('transfers').map((m) => m.id)).toEqual(['s2']);
    expect(queue.sentTo('follower-wake').map((m) => m.id)).toEqual(['s2']);
    expect(queue.sentTo('chain-results').map((m) => m.id)).toEqual(['s3', 's5']);
    const [first] = queue.sentTo('webhook-delivery');
    expect(first).toEqual({
      id: 's1',
      body: records[0] && 'body' in records[0] ? records[0].body : '',
      attributes: { event_type: 'payment_status_update', tenant_id: 't1', event_id: 'e1' },
    });
    expect(log.lines).toEqual([]);
  });

  it('sends the webhook events of one record (one change) to webhook-delivery as one message, in their order; other queues one per event', async () => {
    const queue = new FakeQueueSender();
    const records = [
      routable('s1', event('e1', EVENTS.depositReceived)),
      routable('s1', event('e2', EVENTS.paymentStatusUpdate)),
      routable('s1', event('e3', EVENTS.chainTxConfirmed)),
      routable('s1', event('e4', EVENTS.chainTxFailed)),
      routable('s2', event('e5', EVENTS.paymentStatusUpdate)),
    ];
    const bodyOf = (r: RoutableRecord | undefined) => (r && 'body' in r ? r.body : '');
    expect([...(await routeEvents(records, { queue, log: new RecordingLog() }))]).toEqual([]);
    expect(queue.sentTo('webhook-delivery')).toEqual([
      {
        id: 's1',
        body: changeMessageBody([bodyOf(records[0]), bodyOf(records[1])]),
        attributes: { event_type: 'deposit_received', tenant_id: 't1', event_id: 'e1' },
      },
      { id: 's2', body: bodyOf(records[4]), attributes: { event_type: 'payment_status_update', tenant_id: 't1', event_id: 'e5' } },
    ]);
    expect(JSON.parse(queue.sentTo('webhook-delivery')[0]?.body ?? '')).toEqual({
      kind: 'webhook_events',
      v: 1,
      events: [
        { event_id: 'e1', type: 'deposit_received' },
        { event_id: 'e2', type: 'payment_status_update' },
      ],
    });
    expect(queue.sentTo('chain-results').map((m) => m.body)).toEqual([bodyOf(records[2]), bodyOf(records[3])]);
  });

  it('answers the records whose message a queue refused, and only those', async () => {
    const queue = new FakeQueueSender((q, m) => q === 'chain-results' && m.id === 's3');
    const failed = await routeEvents(
      [
        routable('s1', event('e1', EVENTS.depositReceived)),
        routable('s3', event('e3', EVENTS.chainTxConfirmed)),
        routable('s4', event('e4', EVENTS.chainTxFailed)),
      ],
      { queue, log: new RecordingLog() },
    );
    expect([...failed]).toEqual(['s3']);
  });

  it('drops a type no queue consumes with a warning, and reports unreadable records as failures with an error', async () => {
    const queue = new FakeQueueSender();
    const log = new RecordingLog();
    const failed = await routeEvents(
      [routable('s1', event('e1', 'internal.unknown')), routable('s2', event('e2', 'toString')), { id: 's3', unreadable: 'Not an outbox item' }],
      {
        queue,
        log,
      },
    );
    expect([...failed]).toEqual(['s3']);
    expect(queue.calls).toEqual([]);
    expect(log.lines.map((l) => [l.level, l.message])).toEqual([
      ['warn', 'no route for event type'],
      ['warn', 'no route for event type'],
      ['error', 'unreadable outbox record'],
    ]);
    expect(log.lines[0]?.fields).toEqual({ type: 'internal.unknown', event_id: 'e1' });
    expect(log.lines[2]?.fields).toEqual({ sequence: 's3', error: 'Not an outbox item' });
  });

  it('lets a sender that throws fail the whole batch (the stream retries it)', async () => {
    const queue = { sendBatch: () => Promise.reject(new Error('Queue URL for transfers is not configured')) };
    await expect(routeEvents([routable('s1', event('e1', EVENTS.chainTxRequested))], { queue, log: new RecordingLog() })).rejects.toThrow(/not configured/);
  });
});
