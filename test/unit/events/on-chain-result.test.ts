import type { ChainResultEvent } from '../../../shared/domain/events.js';
import { CHAIN_RESULT_EVENTS, parseRoutedEvent } from '../../../shared/domain/events.js';
import { onChainResult, WITHDRAWAL_CHAIN_FAILURE } from '../../../shared/usecases/chain-tx/on-chain-result.js';
import { VirtualClock } from '../../support/clock.js';
import { RecordingSettlement } from '../../support/fakes/events.js';

const clock = new VirtualClock(new Date('2026-01-01T00:00:00Z'));

const event = (type: 'chain_tx.confirmed' | 'chain_tx.failed', purpose: string, reference: string, txHash: string | null): ChainResultEvent =>
  parseRoutedEvent(
    {
      event_id: 'e1',
      tenant_id: 't1',
      type,
      occurred_at: clock.now().toISOString(),
      payload: { request_id: `ETH:${reference}`, network: 'ETH', reference, purpose, tx_hash: txHash },
    },
    CHAIN_RESULT_EVENTS,
  );

describe('onChainResult', () => {
  it('completes a withdrawal with the mined hash, or fails it with the chain failure reason', async () => {
    const settle = new RecordingSettlement();
    expect(await onChainResult(event('chain_tx.confirmed', 'withdrawal', 'w1', '0xabc'), { settle, clock })).toBe('withdrawal');
    expect(await onChainResult(event('chain_tx.failed', 'withdrawal', 'w2', null), { settle, clock })).toBe('withdrawal');
    expect(await onChainResult(event('chain_tx.confirmed', 'withdrawal', 'w3', null), { settle, clock })).toBe('withdrawal');
    expect(settle.withdrawals).toEqual([
      { tenantId: 't1', withdrawalId: 'w1', result: { ok: true, txHash: '0xabc' }, now: clock.now() },
      { tenantId: 't1', withdrawalId: 'w2', result: { ok: false, reason: WITHDRAWAL_CHAIN_FAILURE }, now: clock.now() },
      { tenantId: 't1', withdrawalId: 'w3', result: { ok: false, reason: WITHDRAWAL_CHAIN_FAILURE }, now: clock.now() },
    ]);
    expect(settle.sweeps).toEqual([]);
  });

  it('completes a sweep with the mined hash, or hands the failure back to the payment', async () => {
    const settle = new RecordingSettlement();
    expect(await onChainResult(event('chain_tx.confirmed', 'sweep', 'payment:t1:p1', '0xswept'), { settle, clock })).toBe('sweep');
    expect(await onChainResult(event('chain_tx.failed', 'sweep', 'payment:t1:p2', '0xreverted'), { settle, clock })).toBe('sweep');
    expect(settle.sweeps).toEqual([
      { reference: 'payment:t1:p1', result: { ok: true, txHash: '0xswept' }, now: clock.now() },
      { reference: 'payment:t1:p2', result: { ok: false }, now: clock.now() },
    ]);
    expect(settle.withdrawals).toEqual([]);
  });

  it('settles nothing for another purpose', async () => {
    const settle = new RecordingSettlement();
    expect(await onChainResult(event('chain_tx.confirmed', 'flush', 'x', '0x1'), { settle, clock })).toBe('ignored');
    expect([settle.sweeps, settle.withdrawals]).toEqual([[], []]);
  });

  it("hands a batch of subscription charges' result to their settlement by its request, and refuses it where none is wired", async () => {
    const seen: unknown[] = [];
    const settle = Object.assign(new RecordingSettlement(), {
      subscriptionCharges: async (requestId: string, result: unknown) => {
        seen.push({ requestId, result });
      },
    });
    const confirmed = event('chain_tx.confirmed', 'subscription_charge', 'subscription-charges:b1', '0xcharged');
    expect(await onChainResult(confirmed, { settle, clock })).toBe('subscription_charge');
    expect(await onChainResult(event('chain_tx.failed', 'subscription_charge', 'subscription-charges:b2', null), { settle, clock })).toBe(
      'subscription_charge',
    );
    expect(seen).toEqual([
      { requestId: 'ETH:subscription-charges:b1', result: { ok: true, txHash: '0xcharged' } },
      { requestId: 'ETH:subscription-charges:b2', result: { ok: false } },
    ]);
    await expect(onChainResult(confirmed, { settle: new RecordingSettlement(), clock })).rejects.toThrow(/subscription charges/);
  });
});
