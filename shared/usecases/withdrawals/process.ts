import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { findCurrency } from '../../domain/currencies.js';
import type { DispatchRefusal, WithdrawalState } from '../../domain/withdrawals.js';
import { noteDispatchRefusal, sentBySolanaWorker, transition } from '../../domain/withdrawals.js';
import type { RequestChainTxInput } from '../chain-tx/request-chain-tx.js';
import { requestChainTx } from '../chain-tx/request-chain-tx.js';
import { errorField } from '../../observability/logger.js';
import { approvalReady, batchable, dispatchBatch, recoverBatchItem } from './batch.js';
import { dispatchBtcBatch, isBtcWithdrawal } from './btc-batch.js';
import type { BatcherDeps } from './ports.js';
import { settleWithdrawal } from './settle.js';
import { transferOf } from './transfer.js';

/**
 * The withdrawal batcher and the chain result consumer (spec 3.2). `pending` -> `processing` asks the chain-tx
 * engine for the transfer (purpose `withdrawal`, reference = withdrawal id, ERC-20 `transfer` calldata or a
 * native value); `chain_tx.confirmed` completes it (locked funds leave to `platform:external`, fees to
 * `platform:fees` / `platform:network_fees`), `chain_tx.failed` fails it (locked back to amount). Each change
 * is ONE transaction with the status and its events. Outside production two staging addresses settle by
 * themselves without a chain transaction: `0x…0001` completes, `0x…0002` fails. The settlement itself is
 * settle.ts (shared with the batch payouts of batch.ts and custody's Solana worker), each transfer transfer.ts.
 */

export const STAGING_COMPLETE = '0x0000000000000000000000000000000000000001';
export const STAGING_FAIL = '0x0000000000000000000000000000000000000002';

export interface BatchReport {
  readonly processing: number;
  readonly completed: number;
  readonly failed: number;
  readonly skipped: number;
}

/** Families the engine sends on (EVM nonces; TRON expiring transactions; Bitcoin batches, with `btcBatch`). */
const SENDABLE_FAMILIES: ReadonlySet<string> = new Set(['evm', 'tron', 'btc']);

/**
 * One pass: up to `limit` pending withdrawals handled, oldest first. Those that cannot be sent here (a network
 * this deployment does not send on, a token without a contract in this deployment, the hot wallet out of reach,
 * a failed request) are skipped without holding the queue, the reason recorded on each (`dispatchRefusal`, shown
 * in `status_reason` once it is slow): the pass reads up to ten times `limit` to find sendable ones behind them.
 * With batch payouts, ERC-20 withdrawals are gathered per currency and paid `maxItems` at a time by one chain
 * transaction each (the default limit is then four batches); one left alone goes singly. Bitcoin withdrawals all
 * go out in ONE transaction per pass (btc-batch.ts), up to `btcBatch.maxOutputs` (the rest on the next pass).
 */
export async function runWithdrawalBatch(
  deps: BatcherDeps,
  limit = Math.max(deps.batchPayout ? deps.batchPayout.maxItems * 4 : 50, deps.btcBatch?.maxOutputs ?? 0),
): Promise<BatchReport> {
  const report = { processing: 0, completed: 0, failed: 0, skipped: 0 };
  const one = async (w: WithdrawalState): Promise<void> => {
    try {
      const outcome = await processOne(w, deps);
      report[outcome] += 1;
    } catch (error) {
      report.skipped += 1;
      deps.log.error('withdrawal batch item failed', { withdrawal_id: w.id, error: errorField(error) });
      // Still pending (the status did not move): say why. A withdrawal that moved meanwhile refuses the note.
      await refuseDispatch(w, 'dispatch_failed', deps).catch(() => undefined);
    }
  };
  /** Batchable withdrawals by currency, sent after the pass. */
  const gathered = new Map<string, WithdrawalState[]>();
  /** Pending BTC withdrawals: one transaction after the pass. */
  const bitcoin: WithdrawalState[] = [];
  let held = 0;
  for (const w of await deps.withdrawals.queued('pending', limit * 10)) {
    if (report.processing + report.completed + report.failed + held >= limit) break;
    // Solana withdrawals are the custody-solana worker's (their own queue): left alone, no refusal noted.
    if (sentBySolanaWorker(w)) continue;
    if (deps.btcBatch && isBtcWithdrawal(w) && dispatchRefusalOf(w, deps) === null) {
      // One transaction per pass: those past its last output wait for the next pass.
      if (bitcoin.length < deps.btcBatch.maxOutputs) {
        bitcoin.push(w);
        held++;
      }
      continue;
    }
    if (!isStaging(w, deps) && dispatchRefusalOf(w, deps) === null && batchable(w, deps)) {
      gathered.set(w.currency, [...(gathered.get(w.currency) ?? []), w]);
      held++;
      continue;
    }
    await one(w);
  }
  for (const group of gathered.values()) await sendGathered(group, one, report, deps);
  if (bitcoin.length > 0) await sendBitcoin(bitcoin, report, deps);
  // A crash between the status change and the chain-tx request leaves a processing withdrawal without a
  // request: ask again for those older than a minute (the request is idempotent, an existing one is returned).
  const cutoff = new Date(deps.clock.now().getTime() - 60_000).toISOString();
  for (const w of await deps.withdrawals.queued('processing', limit)) {
    if (w.updatedAt > cutoff || sentBySolanaWorker(w)) continue;
    try {
      // An item of a batch: left to the batch while its request carries it, else sent singly.
      if (w.batch && !w.batch.single) await recoverBatchItem(w, () => transferOf(w, deps), deps);
      else await requestTransfer(w, deps);
    } catch (error) {
      deps.log.error('withdrawal chain-tx re-request failed', { withdrawal_id: w.id, error: errorField(error) });
    }
  }
  return report;
}

/**
 * The gathered withdrawals of one currency: in batches of up to `maxItems` once the hot wallet's approval of the
 * batch contract for the token is confirmed (asked for on first use), else (and a batch of one) each alone.
 */
async function sendGathered(
  group: readonly WithdrawalState[],
  one: (w: WithdrawalState) => Promise<void>,
  report: { processing: number; skipped: number },
  deps: BatcherDeps,
): Promise<void> {
  const first = group[0];
  const settings = deps.batchPayout;
  const currency = first ? findCurrency(first.currency) : undefined;
  const token = currency ? deps.tokenContract(currency.code) : null;
  let wallet: { keyId: string; address: string } | null = null;
  let ready = false;
  if (settings && currency && token && group.length > 1) {
    try {
      wallet = await deps.wallet(currency.network);
      ready = await approvalReady(currency.network, token, wallet, deps);
    } catch (error) {
      deps.log.error('withdrawal batch not prepared: its withdrawals go singly', { currency: currency.code, error: errorField(error) });
    }
  }
  if (!settings || !ready || !wallet) {
    for (const w of group) await one(w);
    return;
  }
  for (let i = 0; i < group.length; i += settings.maxItems) {
    const chunk = group.slice(i, i + settings.maxItems);
    if (chunk.length === 1) {
      await one(chunk[0] as WithdrawalState);
      continue;
    }
    try {
      const sent = await dispatchBatch(chunk, wallet, deps);
      report.processing += sent.processing;
      report.skipped += sent.skipped;
    } catch (error) {
      // The items saved stay processing with the batch recorded; the recovery below sends them once idle.
      report.skipped += chunk.length;
      deps.log.error('withdrawal batch request failed', { currency: first?.currency, error: errorField(error) });
    }
  }
}

/** The pass's BTC withdrawals (one currency, at most `maxOutputs`) as ONE batch: saves first, then its request. */
async function sendBitcoin(group: readonly WithdrawalState[], report: { processing: number; skipped: number }, deps: BatcherDeps): Promise<void> {
  const first = group[0];
  const settings = deps.btcBatch;
  const currency = first ? findCurrency(first.currency) : undefined;
  if (!first || !settings || !currency) return;
  try {
    const wallet = await deps.wallet(currency.network);
    const sent = await dispatchBtcBatch(group, wallet, settings.maxOutputs, deps);
    report.processing += sent.processing;
    report.skipped += sent.skipped;
  } catch (error) {
    // Items saved stay processing with the batch recorded; the recovery below sends them once idle. The others
    // stay pending for the next pass.
    report.skipped += group.length;
    deps.log.error('BTC withdrawal batch request failed', { currency: currency.code, error: errorField(error) });
  }
}

const isStaging = (w: WithdrawalState, deps: BatcherDeps): boolean => {
  const address = w.address.toLowerCase();
  return deps.settings.stage !== 'prod' && (address === STAGING_COMPLETE || address === STAGING_FAIL);
};

async function processOne(w: WithdrawalState, deps: BatcherDeps): Promise<keyof BatchReport> {
  const now = deps.clock.now();
  const address = w.address.toLowerCase();
  if (isStaging(w, deps)) {
    const txHash = address === STAGING_COMPLETE ? `0x${bytesToHex(sha256(utf8ToBytes(`staging:${w.id}`)))}` : null;
    await settleWithdrawal(w, txHash === null ? { ok: false, reason: 'staging address that always fails' } : { ok: true, txHash }, now, deps);
    return txHash === null ? 'failed' : 'completed';
  }
  const refusal = dispatchRefusalOf(w, deps);
  if (refusal) {
    await refuseDispatch(w, refusal, deps);
    return 'skipped';
  }
  let transfer: RequestChainTxInput;
  try {
    transfer = await transferOf(w, deps);
  } catch (error) {
    // The currency and its contract are known (above): what is left to fail is the hot wallet's key.
    deps.log.error('withdrawal hot wallet unavailable', { withdrawal_id: w.id, error: errorField(error) });
    await refuseDispatch(w, 'hot_wallet_unavailable', deps);
    return 'skipped';
  }
  const change = transition(w, { kind: 'dispatched' }, now);
  // The status moves first (conditioned on the version read, so a concurrent cancel wins or loses cleanly);
  // the chain-tx request is idempotent on (network, withdrawal id), so asking again after a crash is safe.
  await deps.withdrawals.save(w, change, now);
  if (change.effects.some((e) => e.kind === 'request_transfer')) await requestChainTx(transfer, deps.chainTx);
  return 'processing';
}

/** Why this pending withdrawal cannot be handed to the chain here, before anything is asked of it; null when it can. */
function dispatchRefusalOf(w: WithdrawalState, deps: BatcherDeps): DispatchRefusal | null {
  const currency = findCurrency(w.currency);
  if (!currency || !SENDABLE_FAMILIES.has(currency.family) || !deps.served.withdrawals.has(currency.network)) return 'network_not_served';
  if (currency.family === 'btc' && !deps.btcBatch) return 'network_not_served';
  if (!currency.native && !deps.tokenContract(currency.code)) return 'no_token_contract';
  return null;
}

/** Records why the batcher skipped a pending withdrawal, once per reason (a pass every minute writes nothing new). */
async function refuseDispatch(w: WithdrawalState, reason: DispatchRefusal, deps: Pick<BatcherDeps, 'withdrawals' | 'clock'>): Promise<void> {
  if (w.dispatchRefusal === reason) return;
  const now = deps.clock.now();
  await deps.withdrawals.save(w, noteDispatchRefusal(w, reason), now);
}

async function requestTransfer(w: WithdrawalState, deps: BatcherDeps): Promise<void> {
  await requestChainTx(await transferOf(w, deps), deps.chainTx);
}
