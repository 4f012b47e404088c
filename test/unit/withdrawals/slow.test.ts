import { requestIdOf } from '../../../shared/domain/chain-tx.js';
import { CURRENCIES } from '../../../shared/domain/currencies.js';
import { creditEntry, MAIN } from '../../../shared/domain/ledger.js';
import { BATCHER_INTERVAL_MS, expectedWithdrawalMs } from '../../../shared/domain/withdrawals.js';
import { CreateWithdrawalBody, createWithdrawal } from '../../../shared/usecases/withdrawals/create-withdrawal.js';
import { runWithdrawalBatch } from '../../../shared/usecases/withdrawals/process.js';
import { describeWithdrawal } from '../../../shared/usecases/withdrawals/read-withdrawals.js';
import { VirtualClock } from '../../support/clock.js';
import { CHAIN_NETWORKS, serving } from '../../support/fakes/payments.js';
import { aTenant } from '../../support/fakes/tenants.js';
import type { FakeWithdrawals } from '../../support/fakes/withdrawals.js';
import { fakeWithdrawals } from '../../support/fakes/withdrawals.js';

/** A withdrawal waiting longer than its network's expected time says why in `status_reason`. */

const T0 = new Date('2026-01-01T00:00:00.000Z');
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const tenant = aTenant();

async function withdrawal(fake: FakeWithdrawals, currency: 'USDTERC20' | 'USDTBSC' | 'ETH' = 'USDTERC20'): Promise<string> {
  await fake.ledger.post({
    tenantId: tenant.id,
    entryId: `funding-${currency}-${fake.withdrawals.states.size}`,
    entry: creditEntry({ account: MAIN, type: 'adjustment', currency, amount: '100', reason: 'test funding' }),
    now: fake.clock.now(),
  });
  const amount = currency === 'ETH' ? '1' : '20';
  return (await createWithdrawal({ body: CreateWithdrawalBody().parse({ amount, currency, address: DEST }), tenant, now: fake.clock.now() }, fake)).id;
}

const reasonOf = async (fake: FakeWithdrawals, id: string) => (await describeWithdrawal(tenant.id, id, fake)).status_reason;

describe('expected time of a withdrawal', () => {
  it('is the batcher interval plus the currency confirmations at its network block time', () => {
    expect(expectedWithdrawalMs(CURRENCIES.USDTERC20)).toBe(BATCHER_INTERVAL_MS + 12 * 12_000);
    expect(expectedWithdrawalMs(CURRENCIES.USDTTRC20)).toBe(BATCHER_INTERVAL_MS + 19 * 3_000);
    expect(expectedWithdrawalMs(CURRENCIES.USDTARB)).toBe(BATCHER_INTERVAL_MS + 20 * 250);
  });
});

describe('status_reason of a slow withdrawal', () => {
  it('pending on a network the batcher does not send on: the batcher records why, shown once it is slow', async () => {
    const clock = new VirtualClock(T0);
    // Accepted when BSC was served; the batcher of this deployment no longer sends on BSC.
    const fake = fakeWithdrawals({ clock });
    const id = await withdrawal(fake, 'USDTBSC');
    const batcher = { ...fake, served: serving(CHAIN_NETWORKS.filter((n) => n !== 'BSC')) };
    expect(await runWithdrawalBatch(batcher)).toMatchObject({ processing: 0, skipped: 1 });
    expect((await fake.withdrawals.get(tenant.id, id))?.dispatchRefusal).toBe('network_not_served');
    expect(await reasonOf(fake, id)).toBeNull();
    const saves = fake.withdrawals.saves;
    await runWithdrawalBatch(batcher);
    expect(fake.withdrawals.saves).toBe(saves); // the same refusal is not written again
    clock.advance(expectedWithdrawalMs(CURRENCIES.USDTBSC) + 1);
    expect(await reasonOf(fake, id)).toBe('awaiting_dispatch: network_not_served');
    // No event announces a refusal: the status did not change.
    expect(fake.withdrawals.events.filter((e) => e.withdrawalId === id).map((e) => e.key)).toEqual(['created', 'status:pending', 'status_changed:pending']);
  });

  it('pending for a token without a contract here, or with the hot wallet out of reach', async () => {
    const clock = new VirtualClock(T0);
    const fake = fakeWithdrawals({ clock });
    const token = await withdrawal(fake, 'USDTERC20');
    await runWithdrawalBatch({ ...fake, tokenContract: () => null });
    const native = await withdrawal(fake, 'ETH');
    await runWithdrawalBatch({
      ...fake,
      tokenContract: () => null,
      wallet: async () => {
        throw new Error('HOT_WALLET_KEY_ID is not set');
      },
    });
    clock.advance(expectedWithdrawalMs(CURRENCIES.ETH) + 1);
    expect(await reasonOf(fake, token)).toBe('awaiting_dispatch: no_token_contract');
    expect(await reasonOf(fake, native)).toBe('awaiting_dispatch: hot_wallet_unavailable');
    // Handed on at last: the refusal is cleared.
    await runWithdrawalBatch(fake);
    expect((await fake.withdrawals.get(tenant.id, token))?.dispatchRefusal).toBeNull();
  });

  it('pending and never seen by the batcher: awaiting_dispatch, only once slow', async () => {
    const clock = new VirtualClock(T0);
    const fake = fakeWithdrawals({ clock });
    const id = await withdrawal(fake);
    clock.advance(expectedWithdrawalMs(CURRENCIES.USDTERC20));
    expect(await reasonOf(fake, id)).toBeNull();
    clock.advance(1);
    expect(await reasonOf(fake, id)).toBe('awaiting_dispatch');
  });

  it('processing: the hold reason at once; once slow, awaiting_broadcast, then awaiting_confirmations', async () => {
    const clock = new VirtualClock(T0);
    const fake = fakeWithdrawals({ clock });
    const id = await withdrawal(fake);
    await runWithdrawalBatch(fake);
    const requestId = requestIdOf('ETH', id);
    const tx = (await fake.chainTxs.get(requestId))!;
    expect(tx.status).toBe('queued');
    expect(await reasonOf(fake, id)).toBeNull();
    fake.chainTxs.txs.set(requestId, { ...tx, reason: 'insufficient_gas' });
    expect(await reasonOf(fake, id)).toBe('insufficient_gas');
    fake.chainTxs.txs.set(requestId, tx);
    clock.advance(expectedWithdrawalMs(CURRENCIES.USDTERC20) + 1);
    expect(await reasonOf(fake, id)).toBe('awaiting_broadcast');
    fake.chainTxs.txs.set(requestId, { ...tx, status: 'pending' });
    expect(await reasonOf(fake, id)).toBe('awaiting_confirmations');
    fake.chainTxs.txs.delete(requestId);
    expect(await reasonOf(fake, id)).toBe('awaiting_dispatch');
  });
});
