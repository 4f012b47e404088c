import { requestIdOf } from '../../domain/chain-tx.js';
import { findCurrency } from '../../domain/currencies.js';
import { NotFoundError } from '../../domain/errors.js';
import { CHAIN_TX_PURPOSES } from '../../domain/events.js';
import { fromBaseUnits, toBaseUnits } from '../../domain/money.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import { btcPayoutData } from '../chain-tx/btc.js';
import { itemOf } from '../chain-tx/items.js';
import type { RequestChainTxInput } from '../chain-tx/request-chain-tx.js';
import { requestChainTx } from '../chain-tx/request-chain-tx.js';
import type { BatchDispatch, BatchSettlement, BatchSettlementDeps } from './batch.js';
import { enterBatch, goSingly, settleBatchItems } from './batch.js';
import type { BatcherDeps } from './ports.js';
import type { WithdrawalResult } from './settle.js';
import { settleWithdrawal } from './settle.js';

/**
 * Bitcoin withdrawals (DESIGN section 12): every pending BTC withdrawal of a batcher run goes out in ONE transaction
 * (up to `maxOutputs` outputs per transaction), as batch.ts's EVM batch payouts do: each withdrawal moves pending ->
 * processing recording the batch's reference (its own versioned save), then ONE chain-tx request (purpose
 * `withdrawal_batch`, reference `withdrawal-batch:<uuid>`) carries exactly those that moved, as `items`, their
 * outputs in its data (shared/usecases/chain-tx/btc.ts: coins reserved, signed, persisted, broadcast, replaced at a
 * higher fee while stuck, every attempt spending the same coins).
 *
 * Settlement: confirmed -> every item completes with the txid and its share of the fee by weight as its network fee
 * (charged up to the fee held at creation); failed (never signed: cancelled) -> each item goes singly, as the EVM
 * path does (nothing of the batch was paid). A batch that cannot be paid yet waits in the engine (its coins short),
 * its items processing: never half-paid.
 */

/** A pending withdrawal of a UTXO currency (Bitcoin): paid only by a batch of its network. */
export const isBtcWithdrawal = (w: Pick<WithdrawalState, 'currency'>): boolean => findCurrency(w.currency)?.family === 'btc';

/** The single transfer of a BTC withdrawal (a request of one output, under its id): what goes singly. */
export function btcTransferOf(w: WithdrawalState, wallet: { keyId: string; address: string }): RequestChainTxInput {
  const currency = findCurrency(w.currency);
  if (!currency || currency.family !== 'btc') throw new Error(`${w.id} is not a Bitcoin withdrawal`);
  const value = toBaseUnits(w.amount, currency.decimals);
  return {
    network: currency.network,
    wallet,
    to: wallet.address,
    data: btcPayoutData([{ address: w.address, value }]),
    value,
    purpose: CHAIN_TX_PURPOSES.withdrawal,
    reference: w.id,
    tenantId: w.tenantId,
    items: [itemOf(w)],
  };
}

/**
 * Dispatches `group` (pending BTC withdrawals, at most `maxOutputs`) as one batch: the saves first, then ONE request
 * carrying exactly those that moved.
 */
export async function dispatchBtcBatch(
  group: readonly WithdrawalState[],
  wallet: { keyId: string; address: string },
  maxOutputs: number,
  deps: BatcherDeps,
): Promise<BatchDispatch> {
  const first = group[0];
  const currency = first ? findCurrency(first.currency) : undefined;
  if (!first || !currency || currency.family !== 'btc' || group.some((w) => w.currency !== first.currency))
    throw new Error('a BTC batch pays one UTXO currency');
  if (group.length > maxOutputs) throw new RangeError(`a BTC batch holds at most ${maxOutputs} withdrawals`);
  const { reference, members } = await enterBatch(group, deps);
  if (members.length === 0) return { processing: 0, skipped: group.length, reference };
  const outputs = members.map((w) => ({ address: w.address, value: toBaseUnits(w.amount, currency.decimals) }));
  await requestChainTx(
    {
      network: currency.network,
      wallet,
      to: wallet.address,
      data: btcPayoutData(outputs),
      value: outputs.reduce((n, o) => n + o.value, 0n),
      purpose: CHAIN_TX_PURPOSES.withdrawalBatch,
      reference,
      tenantId: 'platform',
      items: members.map(itemOf),
    },
    deps.chainTx,
  );
  return { processing: members.length, skipped: group.length - members.length, reference };
}

export interface BtcBatchSettlementDeps extends Pick<BatchSettlementDeps, 'withdrawals' | 'chainTx'> {
  /** The hot wallet an item that goes singly is sent from. */
  wallet(network: string): Promise<{ keyId: string; address: string }>;
}

/**
 * The result of a BTC batch's request: confirmed -> each item completes with the txid and its fee share; failed ->
 * each goes singly. Idempotent: an item already completed or single is left as it is.
 */
export async function onBtcBatchResult(requestId: string, result: WithdrawalResult, now: Date, deps: BtcBatchSettlementDeps): Promise<BatchSettlement> {
  const batch = await deps.chainTx.store.get(requestId);
  if (!batch) throw new NotFoundError(`No chain-tx request ${requestId}`);
  const items = batch.items ?? [];
  const shares = result.ok ? batch.attempts.find((a) => a.hash === result.txHash)?.feeShares : undefined;
  if (result.ok && (!shares || shares.length !== items.length)) throw new Error(`${requestId}: no fee shares of ${items.length} items for ${result.txHash}`);
  return settleBatchItems(batch, deps, async (w, index) => {
    if (result.ok) {
      const decimals = findCurrency(w.currency)?.decimals ?? 8;
      const networkFee = fromBaseUnits(BigInt(shares?.[index] ?? '0'), decimals);
      await settleWithdrawal(w, { ok: true, txHash: result.txHash, networkFee }, now, deps);
      return 'completed';
    }
    await goSingly(w, async () => btcTransferOf(w, await deps.wallet(batch.network)), now, deps);
    return 'single';
  });
}

/**
 * The result of a withdrawal's own request (purpose `withdrawal`): a Bitcoin one completes with its share of its
 * transaction's fee (a request of one output: the whole fee) as its network fee; any other as settle.ts settles it.
 */
export async function onSingleWithdrawalResult(
  tenantId: string,
  withdrawalId: string,
  result: WithdrawalResult,
  now: Date,
  deps: Pick<BtcBatchSettlementDeps, 'withdrawals' | 'chainTx'>,
): Promise<WithdrawalState | null> {
  const w = await deps.withdrawals.get(tenantId, withdrawalId);
  if (!w) return null;
  const currency = findCurrency(w.currency);
  if (!result.ok || !currency || currency.family !== 'btc') return settleWithdrawal(w, result, now, deps);
  const request = await deps.chainTx.store.get(requestIdOf(currency.network, w.id));
  const share = request?.attempts.find((a) => a.hash === result.txHash)?.feeShares?.[0];
  return settleWithdrawal(w, share === undefined ? result : { ...result, networkFee: fromBaseUnits(BigInt(share), currency.decimals) }, now, deps);
}
