import { randomUUID } from 'node:crypto';
import type { TxReceipt } from '../chain-tx/ports.js';
import type { ChainTx } from '../../domain/chain-tx.js';
import { canCancel, isCancelled, isConfirmed, isFinal, requestIdOf } from '../../domain/chain-tx.js';
import { findCurrency } from '../../domain/currencies.js';
import { ConflictError, NotFoundError } from '../../domain/errors.js';
import { CHAIN_TX_PURPOSES } from '../../domain/events.js';
import { toBaseUnits } from '../../domain/money.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import { isProcessing, leaveBatch, transition } from '../../domain/withdrawals.js';
import { errorField } from '../../observability/logger.js';
import type { ChainTxDeps } from '../chain-tx/ports.js';
import { itemOf, parseItem, settledPool } from '../chain-tx/items.js';
import { cancelChainTx } from '../chain-tx/process-chain-tx.js';
import { claimedRequest, requestChainTx } from '../chain-tx/request-chain-tx.js';
import { isFulfilled, isRejected } from '../settled.js';
import type { BatcherDeps, PayoutCalls, WithdrawalsDeps } from './ports.js';
import type { WithdrawalResult } from './settle.js';
import { settleWithdrawal } from './settle.js';

/**
 * Batch payouts (contracts/BatchPayout.sol): many pending ERC-20 withdrawals of one currency paid by ONE chain
 * transaction, `payout(token, recipients, amounts)` from the hot wallet's allowance, signed once.
 *
 * Dispatch: each withdrawal moves pending -> processing recording the batch's reference (its own versioned save, so
 * a concurrent cancel wins or loses cleanly); then ONE chain-tx request (purpose `withdrawal_batch`, reference
 * `withdrawal-batch:<uuid>`) carries exactly the withdrawals that moved, as `items` (`<tenant>:<withdrawal>`, in
 * call-data order). The engine treats it like any request: nonce, KMS signature, persisted before broadcast,
 * followed, re-signed at the same nonce when stuck.
 *
 * Settlement (`chain_tx.confirmed` / `chain_tx.failed` of the batch): the receipt's `Payouts` event says which
 * items were NOT paid. A paid item completes with the batch's hash; an unpaid one (its transfer failed, or the
 * whole batch reverted or never made it) is left to a transfer of its own (`leaveBatch`: still processing, its
 * own chain-tx request under its id), whose result completes it or fails it with its funds returned. An item is
 * only ever sent singly when the batch is known not to pay it, so nothing is paid twice.
 *
 * Membership is decided by the request: a withdrawal that records a batch whose request does not carry it (its
 * save raced a failure), or whose request never came (the batcher died between the saves and the request: the
 * next pass claims the reference with a cancelled request, so a late batcher cannot send it), or was cancelled
 * before signing (an estimate that keeps failing), goes singly.
 */

/** The batch payout of `token` waits for this request: the hot wallet's approval of the contract. */
export const approvalReference = (contract: string, token: string): string => `batch-payout-approval:${contract.toLowerCase()}:${token.toLowerCase()}`;

/** A pending withdrawal the batch path can pay: an ERC-20 of an EVM network whose token has a contract here. */
export function batchable(w: WithdrawalState, deps: Pick<BatcherDeps, 'tokenContract' | 'batchPayout'>): boolean {
  if (!deps.batchPayout) return false;
  const currency = findCurrency(w.currency);
  return currency !== undefined && currency.family === 'evm' && !currency.native && deps.tokenContract(currency.code) !== null;
}

/**
 * Whether the hot wallet's approval of the batch contract for `token` is confirmed; asks for it (once, idempotent)
 * when it was never requested. Until it is confirmed, the token's withdrawals go singly.
 */
export async function approvalReady(network: string, token: string, wallet: { keyId: string; address: string }, deps: BatcherDeps): Promise<boolean> {
  const settings = deps.batchPayout;
  if (!settings) return false;
  const reference = approvalReference(settings.contract, token);
  const existing = await deps.chainTx.store.get(requestIdOf(network, reference));
  if (existing) {
    if (isFinal(existing) && !isConfirmed(existing)) {
      deps.log.error('batch payout approval did not confirm: withdrawals of the token go singly', { network, token, status: existing.status });
    }
    return isConfirmed(existing);
  }
  await requestChainTx(
    {
      network,
      wallet,
      to: token,
      data: deps.calls.batchPayoutApproval(settings.contract),
      purpose: CHAIN_TX_PURPOSES.batchPayoutApproval,
      reference,
      tenantId: 'platform',
    },
    deps.chainTx,
  );
  return false;
}

export interface BatchDispatch {
  /** The withdrawals the batch's request carries. */
  readonly processing: number;
  /** Those whose save failed (moved meanwhile, or an error). */
  readonly skipped: number;
  readonly reference: string;
}

/**
 * The saves of a batch's dispatch: each withdrawal of `group` moves pending -> processing recording a new batch
 * reference (its own versioned save, so a concurrent cancel wins or loses cleanly). Returns the reference and the
 * withdrawals that moved: exactly those the batch's request must carry.
 */
export async function enterBatch(
  group: readonly WithdrawalState[],
  deps: Pick<BatcherDeps, 'withdrawals' | 'clock' | 'log'>,
): Promise<{ reference: string; members: WithdrawalState[] }> {
  const reference = `withdrawal-batch:${randomUUID()}`;
  const now = deps.clock.now();
  const saved = await settledPool(group, 8, (w) => deps.withdrawals.save(w, transition(w, { kind: 'dispatched', batch: reference }, now), now));
  const members: WithdrawalState[] = [];
  saved.forEach((result, i) => {
    if (isFulfilled(result)) members.push(result.value);
    // A save that failed otherwise than by a conflict may still have been written: the withdrawal then records
    // this batch, but the request below does not carry it, and a later pass sends it singly.
    else if (!(result.reason instanceof ConflictError))
      deps.log.error('withdrawal batch item not saved', { withdrawal_id: group[i]?.id, error: errorField(result.reason) });
  });
  return { reference, members };
}

/**
 * Dispatches `group` (pending withdrawals of ONE currency, at most `maxItems`, each batchable) as one batch: the
 * saves first, then the batch's request carrying exactly those that moved.
 */
export async function dispatchBatch(group: readonly WithdrawalState[], wallet: { keyId: string; address: string }, deps: BatcherDeps): Promise<BatchDispatch> {
  const settings = deps.batchPayout;
  const first = group[0];
  if (!settings || !first) throw new Error('dispatchBatch needs the batch settings and at least one withdrawal');
  const currency = findCurrency(first.currency);
  const token = currency ? deps.tokenContract(currency.code) : null;
  if (!currency || !token || group.some((w) => w.currency !== first.currency)) throw new Error('a batch pays one known token');
  if (group.length > settings.maxItems) throw new RangeError(`a batch holds at most ${settings.maxItems} withdrawals`);
  const { reference, members } = await enterBatch(group, deps);
  if (members.length === 0) return { processing: 0, skipped: group.length, reference };
  await requestChainTx(
    {
      network: currency.network,
      wallet,
      to: settings.contract,
      data: deps.calls.batchPayout(
        token,
        members.map((w) => ({ to: w.address, units: toBaseUnits(w.amount, currency.decimals) })),
      ),
      purpose: CHAIN_TX_PURPOSES.withdrawalBatch,
      reference,
      tenantId: 'platform',
      items: members.map(itemOf),
    },
    deps.chainTx,
  );
  return { processing: members.length, skipped: group.length - members.length, reference };
}

/**
 * The single transfer of item `index` of a batch request (`payout`, its call data decoded): what `transferOf` asks
 * for the same withdrawal.
 */
function singleTransferOf(
  batch: ChainTx,
  payout: ReturnType<PayoutCalls['decodeBatchPayout']>,
  index: number,
  w: WithdrawalState,
  calls: PayoutCalls,
): Parameters<typeof requestChainTx>[0] {
  const { token, items } = payout;
  const item = items[index];
  if (!item) throw new RangeError(`${batch.requestId} has no item ${index}`);
  return {
    network: batch.network,
    wallet: batch.wallet,
    to: token,
    data: calls.transfer(item.to, item.units),
    value: 0n,
    purpose: CHAIN_TX_PURPOSES.withdrawal,
    reference: w.id,
    tenantId: w.tenantId,
  };
}

/**
 * Leaves a batch item to a transfer of its own: saved `single` (no status change) with the request made after.
 * Idempotent: a withdrawal already single is only asked for again (the request is idempotent on its id).
 */
export async function goSingly(
  w: WithdrawalState,
  request: () => Promise<Parameters<typeof requestChainTx>[0]>,
  now: Date,
  deps: { readonly withdrawals: WithdrawalsDeps['withdrawals']; readonly chainTx: Pick<ChainTxDeps, 'store' | 'clock'> },
): Promise<void> {
  let current = w;
  if (current.batch && !current.batch.single) {
    try {
      current = await deps.withdrawals.save(current, leaveBatch(current, now), now);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      const reread = await deps.withdrawals.get(w.tenantId, w.id);
      if (!reread) throw error;
      current = reread;
    }
  }
  if (isProcessing(current) && current.batch?.single === true) await requestChainTx(await request(), deps.chainTx);
}

export interface BatchSettlementDeps {
  readonly withdrawals: WithdrawalsDeps['withdrawals'];
  readonly chainTx: Pick<ChainTxDeps, 'store' | 'clock'>;
  /** The batch's call data decoded, its receipt's outcome read, and the transfers of its unpaid items. */
  readonly calls: PayoutCalls;
  /** The receipt of a mined transaction, with its logs. */
  receipt(network: string, txHash: string): Promise<TxReceipt | null>;
}

export interface BatchSettlement {
  readonly completed: number;
  readonly single: number;
  /** Items already settled or left before (a repeated result). */
  readonly unchanged: number;
}

/**
 * The result of a batch's chain transaction (purpose `withdrawal_batch`): paid items complete with its hash, the
 * others go singly. A confirmed batch whose receipt has no `Payouts` event of the contract it called settles
 * nothing (thrown: the message comes back, and the withdrawals stay processing, in sight of the stuck alarm).
 * Idempotent: an item already completed or already single is left as it is.
 */
export async function onWithdrawalBatchResult(requestId: string, result: WithdrawalResult, now: Date, deps: BatchSettlementDeps): Promise<BatchSettlement> {
  const batch = await deps.chainTx.store.get(requestId);
  if (!batch) throw new NotFoundError(`No chain-tx request ${requestId}`);
  const items = batch.items ?? [];
  let unpaid: ReadonlySet<number>;
  if (result.ok) {
    const receipt = await deps.receipt(batch.network, result.txHash);
    if (!receipt) throw new Error(`No receipt for ${result.txHash} of ${requestId}`);
    const outcome = receipt.status === 1 ? deps.calls.batchOutcome(receipt.logs ?? [], batch.to) : null;
    if (!outcome || outcome.count !== items.length)
      throw new Error(`The receipt of ${result.txHash} has no Payouts event of ${items.length} items from ${batch.to}`);
    unpaid = new Set(outcome.failed);
  } else {
    // Reverted, or never mined: nothing of it was paid.
    unpaid = new Set(items.map((_, i) => i));
  }
  // The batch's call data, decoded once for all the items that go singly.
  let decoded: ReturnType<PayoutCalls['decodeBatchPayout']> | undefined;
  const payout = (): ReturnType<PayoutCalls['decodeBatchPayout']> => (decoded ??= deps.calls.decodeBatchPayout(batch.data));
  return settleBatchItems(batch, deps, async (w, index) => {
    if (result.ok && !unpaid.has(index)) {
      await settleWithdrawal(w, { ok: true, txHash: result.txHash }, now, deps);
      return 'completed';
    }
    await goSingly(w, async () => singleTransferOf(batch, payout(), index, w, deps.calls), now, deps);
    return 'single';
  });
}

/**
 * Settles each item of a batch's request that still waits on it (processing, recording this batch, not left to a
 * transfer of its own) with `settle`; the others count as unchanged, so a repeated result changes nothing. The first
 * failure is thrown once every item was tried.
 */
export async function settleBatchItems(
  batch: Pick<ChainTx, 'items' | 'reference'>,
  deps: { readonly withdrawals: WithdrawalsDeps['withdrawals'] },
  settle: (w: WithdrawalState, index: number) => Promise<'completed' | 'single'>,
): Promise<BatchSettlement> {
  const counts = { completed: 0, single: 0, unchanged: 0 };
  const settled = await settledPool(batch.items ?? [], 8, async (key, index) => {
    const { tenantId, id } = parseItem(key);
    const w = await deps.withdrawals.get(tenantId, id);
    if (!w || !isProcessing(w) || w.batch?.reference !== batch.reference || w.batch.single) {
      counts.unchanged++;
      return;
    }
    counts[await settle(w, index)]++;
  });
  const failure = settled.find(isRejected);
  if (failure) throw failure.reason;
  return counts;
}

/**
 * A processing withdrawal of a batch, idle for a while (the batcher's recovery): nothing when the batch's request
 * carries it and may still pay it; otherwise it goes singly. A reference with no request is claimed first with a
 * cancelled one (never sent), so a batcher that is late rather than dead cannot send the batch after this.
 * A batch whose request cannot be estimated is cancelled (before signing only), and its items go singly.
 */
export async function recoverBatchItem(
  w: WithdrawalState,
  transfer: () => Promise<Parameters<typeof requestChainTx>[0]>,
  deps: BatcherDeps,
): Promise<'waiting' | 'single'> {
  const reference = w.batch?.reference;
  if (!reference || w.batch?.single) throw new ConflictError('not a batch item', { withdrawal_id: w.id });
  const network = findCurrency(w.currency)?.network ?? w.network;
  const now = deps.clock.now();
  const batch = await claimedRequest(
    {
      network,
      reference,
      purpose: CHAIN_TX_PURPOSES.withdrawalBatch,
      wallet: () => deps.wallet(network),
      to: (wallet) => deps.batchPayout?.contract ?? wallet.address,
    },
    deps.chainTx,
  );
  const carried = !isCancelled(batch) && (batch.items ?? []).includes(itemOf(w));
  if (carried && batch.reason === 'estimate_failed' && canCancel(batch)) {
    const cancelled = await cancelChainTx(batch.requestId, deps.chainTx).catch(() => null);
    if (!cancelled || !isCancelled(cancelled)) return 'waiting';
  } else if (carried) {
    return 'waiting';
  }
  await goSingly(w, transfer, now, deps);
  return 'single';
}
