import { CURRENCIES } from '../../../shared/domain/currencies.js';
import { creditEntry, MAIN } from '../../../shared/domain/ledger.js';
import type { Decimal } from '../../../shared/domain/money.js';
import type { Tenant } from '../../../shared/domain/tenant.js';
import type { WithdrawalState } from '../../../shared/domain/withdrawals.js';
import type { WriteItem } from '../../../shared/usecases/ports.js';
import { CreateWithdrawalBody, createWithdrawal } from '../../../shared/usecases/withdrawals/create-withdrawal.js';
import type { BatcherDeps } from '../../../shared/usecases/withdrawals/ports.js';
import { runWithdrawalBatch, STAGING_COMPLETE, STAGING_FAIL } from '../../../shared/usecases/withdrawals/process.js';
import { onWithdrawalChainResult, settleWithdrawal } from '../../../shared/usecases/withdrawals/settle.js';
import { erc20TransferData } from '../../../shared/chain/evm/erc20.js';
import { EstimateWithdrawalBody, estimateWithdrawal, FeeEstimateBody, feeEstimate } from '../../../shared/usecases/withdrawals/estimate.js';
import { cancelWithdrawal } from '../../../shared/usecases/withdrawals/read-withdrawals.js';
import { VirtualClock } from '../../support/clock.js';
import { fakeTokenContract } from '../../support/fakes/payments.js';
import { aTenant } from '../../support/fakes/tenants.js';
import type { FakeWithdrawals } from '../../support/fakes/withdrawals.js';
import { FAKE_WALLET, fakeWithdrawals } from '../../support/fakes/withdrawals.js';

/** The withdrawal use cases against the in-memory ports: no DynamoDB, no chain, a virtual clock. */

const T0 = new Date('2026-01-01T00:00:00.000Z');
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const USDT = fakeTokenContract(CURRENCIES.USDTERC20) as string;
const tenant = aTenant();

/** Withdrawal fakes with `funds` USDTERC20 on the tenant's main account. */
async function funded(funds: Decimal = '1000', options: Parameters<typeof fakeWithdrawals>[0] = {}): Promise<FakeWithdrawals> {
  const fake = fakeWithdrawals({ clock: new VirtualClock(T0), ...options });
  await fake.ledger.post({
    tenantId: 't1',
    entryId: 'funding',
    entry: creditEntry({ account: MAIN, type: 'adjustment', currency: 'USDTERC20', amount: funds, reason: 'test funding' }),
    now: T0,
  });
  return fake;
}

const create = (fake: FakeWithdrawals, body: Partial<CreateWithdrawalBody> = {}, who: Tenant = tenant) =>
  createWithdrawal({ body: { amount: '100', currency: 'USDTERC20', address: DEST, ...body }, tenant: who, now: fake.clock.now() }, fake);

const main = (fake: FakeWithdrawals) => fake.ledger.balance('t1', 'main', 'USDTERC20');
const entryIds = (fake: FakeWithdrawals) => fake.ledger.entries.map((e) => e.id);

describe('createWithdrawal', () => {
  it('stores a pending withdrawal and holds amount + fees on the main account in the same change', async () => {
    const fake = await funded();
    const w = await create(fake, { custom_id: 'c-1' });
    expect(w).toMatchObject({
      tenantId: 't1',
      status: 'pending',
      currency: 'USDTERC20',
      network: 'ETH',
      token: 'USDT',
      amount: '100',
      platformFee: '1',
      networkFee: '3',
      totalFee: '4',
      totalDeducted: '104',
      address: DEST,
      customId: 'c-1',
      version: 1,
      createdAt: T0.toISOString(),
    });
    expect(await fake.withdrawals.get('t1', w.id)).toEqual(w);
    expect(await main(fake)).toEqual({ amount: '896', pending: '0', locked: '104' });
    expect(fake.ledger.entries.at(-1)).toMatchObject({ id: `withdrawal:${w.id}:hold`, type: 'withdrawal_hold', reference: { kind: 'withdrawal', id: w.id } });
    expect(fake.withdrawals.events.map((e) => [e.type, e.key])).toEqual([
      ['withdrawal.created', 'created'],
      ['withdrawal_status_update', 'status:pending'],
      ['withdrawal.status_changed', 'status_changed:pending'],
    ]);
    expect(await fake.withdrawals.queued('pending', 10)).toEqual([w]);
  });

  it('commits the Idempotency-Key record with the withdrawal, built from it as stored', async () => {
    const fake = await funded();
    const seen: WithdrawalState[] = [];
    const guard = {
      completeItem: (stored: WithdrawalState) => {
        seen.push(stored);
        return { idempotency: stored.id } as unknown as WriteItem;
      },
    };
    const w = await createWithdrawal(
      { body: { amount: '100', currency: 'USDTERC20', address: DEST }, tenant, now: fake.clock.now(), idempotency: guard },
      fake,
    );
    expect(seen).toEqual([w]);
    expect(fake.withdrawals.alsoWritten).toEqual([{ idempotency: w.id }]);
  });

  it('insufficient_balance names what is available and what was asked; nothing is stored or held', async () => {
    const fake = await funded('50');
    await expect(create(fake)).rejects.toMatchObject({
      code: 'insufficient_balance',
      status: 400,
      details: { available: '50', requested: '100', total_with_fees: '104', currency: 'USDTERC20' },
    });
    expect(await fake.withdrawals.list('t1', { by: 'created', ascending: true })).toEqual([]);
    expect(fake.withdrawals.events).toEqual([]);
    expect(entryIds(fake)).toEqual(['funding']);
    expect(await main(fake)).toEqual({ amount: '50', pending: '0', locked: '0' });
  });

  it('a balance spent between the check and the write is refused by the hold itself, with nothing stored', async () => {
    const fake = await funded('50');
    // The pre-check reads a balance that is gone by the time the hold is posted.
    let reads = 0;
    const ledger = {
      balances: fake.ledger.balances.bind(fake.ledger),
      balance: async (...args: Parameters<typeof fake.ledger.balance>) =>
        reads++ === 0 ? { amount: '1000', pending: '0', locked: '0' } : fake.ledger.balance(...args),
    };
    await expect(
      createWithdrawal({ body: { amount: '100', currency: 'USDTERC20', address: DEST }, tenant, now: fake.clock.now() }, { ...fake, ledger }),
    ).rejects.toMatchObject({
      code: 'insufficient_balance',
      details: { available: '50', total_with_fees: '104' },
    });
    expect(reads).toBe(2);
    expect(await fake.withdrawals.queued('pending', 10)).toEqual([]);
    expect([fake.withdrawals.events, fake.withdrawals.alsoWritten]).toEqual([[], []]);
    expect(await main(fake)).toEqual({ amount: '50', pending: '0', locked: '0' });
  });

  it('below_minimum (422) and invalid_address (400) are refused before anything is written', async () => {
    const fake = await funded();
    await expect(create(fake, { amount: '5' })).rejects.toMatchObject({
      code: 'below_minimum',
      status: 422,
      details: { minimum: '10', requested: '5', currency: 'USDTERC20' },
    });
    await expect(create(fake, { address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' })).rejects.toMatchObject({
      code: 'invalid_address',
      status: 400,
      details: { address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', expected_format: expect.any(String) },
    });
    expect(entryIds(fake)).toEqual(['funding']);
    expect(fake.withdrawals.states.size).toBe(0);
  });

  it('keeps the day within the daily withdrawal limit (USD of the amount received)', async () => {
    const fake = await funded();
    const limited = aTenant({ settings: { ...tenant.settings, limits: { ...tenant.settings.limits, daily_withdrawal_limit: '150' } } });
    const first = await create(fake, {}, limited);
    await expect(create(fake, {}, limited)).rejects.toMatchObject({ name: 'DailyLimitError', code: 'invalid_request', status: 400 });
    // One amount alone above the limit is refused before the repository is asked.
    await expect(create(fake, { amount: '151' }, limited)).rejects.toMatchObject({ name: 'DailyLimitError' });
    expect([...fake.withdrawals.states.values()]).toEqual([first]);
    expect(await main(fake)).toEqual({ amount: '896', pending: '0', locked: '104' });
    // 50 more fits exactly.
    expect((await create(fake, { amount: '50' }, limited)).status).toBe('pending');
    fake.clock.advance(86_400_000);
    expect((await create(fake, {}, limited)).status).toBe('pending');
  });
});

describe('one price for estimate, fee-estimate and creation', () => {
  it('a TRON address never activated pays the activation fee in all three', async () => {
    const TRON_DEST = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
    const fake = fakeWithdrawals({ clock: new VirtualClock(T0) });
    const deps = { ...fake, fees: { ...fake.fees, isNewAddress: async () => true } };
    await fake.ledger.post({
      tenantId: 't1',
      entryId: 'funding',
      entry: creditEntry({ account: MAIN, type: 'adjustment', currency: 'USDTTRC20', amount: '1000', reason: 'test funding' }),
      now: T0,
    });
    const body = { amount: '100', currency: 'USDTTRC20', address: TRON_DEST };
    const estimate = await estimateWithdrawal(EstimateWithdrawalBody().parse({ ...body, final_amount: true }), tenant, deps);
    const fees = await feeEstimate(FeeEstimateBody().parse(body), tenant, deps);
    const created = await createWithdrawal({ body, tenant, now: T0 }, deps);
    const networkFee = (Number(fake.fees.networkFees.USDTTRC20) + 1).toFixed(8);
    expect(estimate).toMatchObject({ network_fee: networkFee, is_new_address: true, address_activation_fee: '1.00000000' });
    expect(fees).toMatchObject({ network_fee: networkFee, total_deducted: estimate.total_deducted, is_new_address: true });
    expect(Number(created.networkFee).toFixed(8)).toBe(networkFee);
    expect(Number(created.totalDeducted).toFixed(8)).toBe(estimate.total_deducted);
  });
});

describe('CreateWithdrawalBody', () => {
  const fields = (body: unknown) =>
    CreateWithdrawalBody()
      .safeParse(body)
      .error?.issues.map((i) => i.path.join('.'))
      .sort();

  it('reports every field at once: a missing amount with an over-long custom_id gets both', () => {
    expect(fields({ currency: 'USDTERC20', address: DEST, custom_id: 'x'.repeat(65) })).toEqual(['amount', 'custom_id']);
    expect(fields({ custom_id: 'x'.repeat(65) })).toEqual(['address', 'amount', 'currency', 'custom_id']);
    expect(fields({ price_amount: '0', blockchain: 'ETH', address: DEST })).toEqual(['price_amount', 'token']);
    expect(fields({ amount: '100', currency: 'USDTERC20', address: DEST })).toBeUndefined();
    expect(fields({ price_amount: '100', price_currency: 'USD', blockchain: 'ETH', token: 'USDT', address: DEST })).toBeUndefined();
  });
});

describe('cancelWithdrawal', () => {
  it('cancels a pending withdrawal and releases its hold; a second cancel is 409 invalid_state', async () => {
    const fake = await funded();
    const w = await create(fake);
    fake.clock.advance(60_000);
    const cancelled = await cancelWithdrawal('t1', w.id, fake.clock.now(), fake);
    expect([cancelled.status, cancelled.version, cancelled.updatedAt]).toEqual(['cancelled', 2, '2026-01-01T00:01:00.000Z']);
    expect(await main(fake)).toEqual({ amount: '1000', pending: '0', locked: '0' });
    expect(fake.ledger.entries.at(-1)).toMatchObject({ id: `withdrawal:${w.id}:release`, type: 'withdrawal_release' });
    expect(fake.withdrawals.events.slice(3).map((e) => [e.type, e.key, e.payload.previous_status])).toEqual([
      ['withdrawal_status_update', 'status:cancelled', 'pending'],
      ['withdrawal.status_changed', 'status_changed:cancelled', 'pending'],
      ['withdrawal.cancelled', 'cancelled', 'pending'],
    ]);
    expect(await fake.withdrawals.queued('pending', 10)).toEqual([]);

    const entries = fake.ledger.entries.length;
    await expect(cancelWithdrawal('t1', w.id, fake.clock.now(), fake)).rejects.toMatchObject({
      code: 'invalid_state',
      status: 409,
      details: { status: 'cancelled', action: 'cancel' },
    });
    expect(await fake.withdrawals.get('t1', w.id)).toEqual(cancelled);
    expect(fake.ledger.entries).toHaveLength(entries);
    await expect(cancelWithdrawal('t1', 'nope', fake.clock.now(), fake)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a processing withdrawal cannot be cancelled', async () => {
    const fake = await funded();
    const w = await create(fake);
    await runWithdrawalBatch(fake);
    await expect(cancelWithdrawal('t1', w.id, fake.clock.now(), fake)).rejects.toMatchObject({ code: 'invalid_state', details: { status: 'processing' } });
    expect(await main(fake)).toEqual({ amount: '896', pending: '0', locked: '104' });
  });
});

describe('runWithdrawalBatch', () => {
  it('pending -> processing with one chain-tx request for the ERC-20 transfer', async () => {
    const fake = await funded();
    const w = await create(fake);
    expect(await runWithdrawalBatch(fake)).toEqual({ processing: 1, completed: 0, failed: 0, skipped: 0 });
    const processing = await fake.withdrawals.get('t1', w.id);
    expect([processing?.status, processing?.version]).toEqual(['processing', 2]);
    expect(fake.chainTxs.created).toHaveLength(1);
    const [{ tx, announce }] = fake.chainTxs.created as [(typeof fake.chainTxs.created)[number]];
    expect(tx).toMatchObject({
      requestId: `ETH:${w.id}`,
      network: 'ETH',
      purpose: 'withdrawal',
      reference: w.id,
      tenantId: 't1',
      value: 0n,
      data: erc20TransferData(DEST, 100_000_000n),
      status: 'queued',
    });
    expect(tx.to.toLowerCase()).toBe(USDT);
    expect(tx.wallet).toEqual({ keyId: FAKE_WALLET.keyId, address: FAKE_WALLET.address });
    expect(announce).toEqual({
      eventType: 'chain_tx.requested',
      payload: { request_id: `ETH:${w.id}`, network: 'ETH', reference: w.id, purpose: 'withdrawal' },
    });
    expect(fake.withdrawals.events.slice(3).map((e) => e.type)).toEqual(['withdrawal_status_update', 'withdrawal.status_changed', 'withdrawal.processing']);
    // Nothing moves on the ledger until the chain answers.
    expect(await main(fake)).toEqual({ amount: '896', pending: '0', locked: '104' });

    // A second pass finds nothing pending and asks nothing again.
    expect(await runWithdrawalBatch(fake)).toEqual({ processing: 0, completed: 0, failed: 0, skipped: 0 });
    expect(fake.chainTxs.created).toHaveLength(1);
  });

  it('asks again, after a minute, for a processing withdrawal whose request was lost', async () => {
    const fake = await funded();
    const w = await create(fake);
    const lost: BatcherDeps = {
      ...fake,
      chainTx: {
        ...fake.chainTx,
        store: Object.assign(Object.create(fake.chainTxs) as typeof fake.chainTxs, {
          create: async () => {
            throw new Error('lost');
          },
        }),
      },
    };
    expect(await runWithdrawalBatch(lost)).toMatchObject({ processing: 0, skipped: 1 });
    expect((await fake.withdrawals.get('t1', w.id))?.status).toBe('processing');
    expect(fake.log.errors.map((e) => [e.message, e.fields?.withdrawal_id])).toEqual([['withdrawal batch item failed', w.id]]);
    fake.clock.advance(30_000);
    await runWithdrawalBatch(fake);
    expect(fake.chainTxs.created).toEqual([]);
    fake.clock.advance(31_000);
    await runWithdrawalBatch(fake);
    expect(fake.chainTxs.created.map((c) => c.tx.reference)).toEqual([w.id]);
  });

  it('outside production 0x…0001 completes and 0x…0002 fails by themselves, without a chain transaction', async () => {
    const fake = await funded();
    const ok = await create(fake, { amount: '10', address: STAGING_COMPLETE });
    const bad = await create(fake, { amount: '10', address: STAGING_FAIL });
    expect(await main(fake)).toEqual({ amount: '973.8', pending: '0', locked: '26.2' });
    expect(await runWithdrawalBatch(fake)).toEqual({ processing: 0, completed: 1, failed: 1, skipped: 0 });
    const done = await fake.withdrawals.get('t1', ok.id);
    expect(done?.status).toBe('completed');
    expect(done?.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await fake.withdrawals.get('t1', bad.id)).toMatchObject({ status: 'failed', failureReason: 'staging address that always fails' });
    expect(fake.chainTxs.created).toEqual([]);
    // 1000 - (10 + 0.1 + 3) for the completed one; the failed one's hold is returned.
    expect(await main(fake)).toEqual({ amount: '986.9', pending: '0', locked: '0' });
    expect(await fake.ledger.platformBalances('platform:fees')).toEqual({ USDTERC20: '0.1' });
    expect(await fake.ledger.platformBalances('platform:network_fees')).toEqual({ USDTERC20: '3' });
  });

  it('in production the staging addresses are ordinary destinations', async () => {
    const fake = await funded('1000', { stage: 'prod' });
    const w = await create(fake, { amount: '10', address: STAGING_COMPLETE });
    expect(await runWithdrawalBatch(fake)).toMatchObject({ processing: 1, completed: 0 });
    expect(fake.chainTxs.created.map((c) => c.tx.reference)).toEqual([w.id]);
  });
});

describe('settleWithdrawal and onWithdrawalChainResult', () => {
  it('completed: the held funds leave, the fees go to the platform accounts; a repeated result changes nothing', async () => {
    const fake = await funded();
    const w = await create(fake);
    await runWithdrawalBatch(fake);
    fake.clock.advance(60_000);
    const done = await onWithdrawalChainResult('t1', w.id, { ok: true, txHash: '0xabc' }, fake.clock.now(), fake);
    expect(done).toMatchObject({ status: 'completed', transactionHash: '0xabc', version: 3, updatedAt: '2026-01-01T00:01:00.000Z' });
    expect(await main(fake)).toEqual({ amount: '896', pending: '0', locked: '0' });
    expect(await fake.ledger.platformBalances('platform:fees')).toEqual({ USDTERC20: '1' });
    expect(await fake.ledger.platformBalances('platform:network_fees')).toEqual({ USDTERC20: '3' });
    expect(fake.ledger.entries.at(-1)).toMatchObject({ id: `withdrawal:${w.id}:complete`, type: 'withdrawal' });
    expect(fake.withdrawals.events.at(-1)).toMatchObject({
      type: 'withdrawal.completed',
      payload: { status: 'completed', previous_status: 'processing', transaction_hash: '0xabc' },
    });
    expect(await fake.withdrawals.queued('processing', 10)).toEqual([]);

    const [entries, events, saves] = [fake.ledger.entries.length, fake.withdrawals.events.length, fake.withdrawals.saves];
    expect(await onWithdrawalChainResult('t1', w.id, { ok: true, txHash: '0xabc' }, fake.clock.now(), fake)).toEqual(done);
    expect(await onWithdrawalChainResult('t1', w.id, { ok: false, reason: 'late failure' }, fake.clock.now(), fake)).toEqual(done);
    expect([fake.ledger.entries.length, fake.withdrawals.events.length, fake.withdrawals.saves]).toEqual([entries, events, saves]);
    expect(await onWithdrawalChainResult('t1', '00000000-0000-4000-8000-000000000000', { ok: true, txHash: '0x1' }, fake.clock.now(), fake)).toBeNull();
  });

  it('failed: the held funds return to the main account', async () => {
    const fake = await funded();
    const w = await create(fake, { amount: '50' });
    await runWithdrawalBatch(fake);
    const failed = await onWithdrawalChainResult('t1', w.id, { ok: false, reason: 'reverted' }, fake.clock.now(), fake);
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'reverted', transactionHash: null });
    expect(await main(fake)).toEqual({ amount: '1000', pending: '0', locked: '0' });
    expect(fake.ledger.entries.at(-1)).toMatchObject({ id: `withdrawal:${w.id}:fail`, type: 'withdrawal_release' });
    expect(await fake.ledger.platformBalances('platform:fees')).toEqual({});
  });

  it('a result read before another one was saved is refused by the version, and changes nothing', async () => {
    const fake = await funded();
    const w = await create(fake);
    await runWithdrawalBatch(fake);
    const read = await fake.withdrawals.get('t1', w.id);
    if (!read) throw new Error('missing');
    await settleWithdrawal(read, { ok: true, txHash: '0xabc' }, fake.clock.now(), fake);
    const entries = fake.ledger.entries.length;
    await expect(settleWithdrawal(read, { ok: false, reason: 'duplicate' }, fake.clock.now(), fake)).rejects.toMatchObject({ code: 'invalid_state' });
    expect((await fake.withdrawals.get('t1', w.id))?.status).toBe('completed');
    expect(fake.ledger.entries).toHaveLength(entries);
    expect(await main(fake)).toEqual({ amount: '896', pending: '0', locked: '0' });
  });
});
