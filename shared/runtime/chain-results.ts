import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import type { ChainResultPorts } from '../usecases/chain-tx/ports.js';
import { custodySweepOf } from '../domain/custody.js';
import { dynamoCustodyDeposits } from '../store/custody.js';
import { onCustodySweepResult } from '../usecases/custody/scan-deposits.js';
import { onSweepBatchResult, onSweepResult } from '../usecases/payments/settle.js';
import { onWithdrawalBatchResult } from '../usecases/withdrawals/batch.js';
import { onBtcBatchResult, onSingleWithdrawalResult } from '../usecases/withdrawals/btc-batch.js';
import { isBtcNetwork } from '../usecases/chain-tx/btc.js';
import { parseRequestId } from '../domain/chain-tx.js';
import type { ChainTxRuntime } from './chain-tx.js';
import { chainTxRuntime } from './chain-tx.js';
import { evmChainsOf } from '../chain/engine/evm.js';
import { payoutCalls } from '../chain/evm/batch-payout.js';
import { dynamoChainTxStore } from '../store/chain-tx.js';
import { paymentsRuntime } from './payments.js';
import { pullSubscriptionsRuntime } from './collector.js';
import type { SubscriptionsDeps } from '../usecases/subscriptions/ports.js';
import { onChargeBatchResult } from '../usecases/subscriptions/pull.js';
import { excessRefundsRuntime } from './refunds.js';
import { linkCompletionsRuntime } from './payment-links.js';
import { withdrawalsRuntime } from './withdrawals.js';
import { dynamoRefunds } from '../store/refunds.js';
import { dynamoWithdrawals } from '../store/withdrawals.js';
import { followingRefunds } from '../usecases/refunds/payout.js';

/**
 * The chain-results worker's ports: the payment and withdrawal settlements, wired from configuration (a batch
 * payout's through the receipt on the network's `EVM_RPC_URLS` endpoint).
 */
export function chainResultsRuntime(cfg: Config = config()): ChainResultPorts {
  const payments = { ...paymentsRuntime(cfg), excessRefund: excessRefundsRuntime(cfg), linkCompletion: linkCompletionsRuntime() };
  // A refund follows the withdrawal that pays it (completed or failed in the same transaction).
  const withdrawals = { ...withdrawalsRuntime(cfg), withdrawals: followingRefunds(dynamoWithdrawals, dynamoRefunds) };
  // A batch payout's settlement reads its receipt (the items' outcomes): one provider per network, on first use.
  const chainOf = evmChainsOf(cfg.EVM_RPC_URLS);
  // The hot wallet a Bitcoin batch's items are sent singly from when the batch never went out (built on first use).
  let engine: ChainTxRuntime | undefined;
  let subscriptions: SubscriptionsDeps | undefined;
  return {
    settle: {
      sweep: async (reference, result, now) => {
        // A custody deposit's sweep (`custody:<tenant>:<deposit>`), else a payment's (`payment:<tenant>:<id>`).
        const custody = custodySweepOf(reference);
        if (custody) await onCustodySweepResult(custody, result, { custodyDeposits: dynamoCustodyDeposits }, now);
        else await onSweepResult(reference, result, payments, now);
      },
      // A batched sweep (`sweep:<uuid>`): every payment its request carries.
      sweepBatch: (requestId, result, now) => onSweepBatchResult(requestId, result, { ...payments, sweeps: dynamoChainTxStore }, now),
      // A Bitcoin withdrawal sent alone completes with its transaction's fee as its network fee.
      withdrawal: (tenantId, withdrawalId, result, now) =>
        onSingleWithdrawalResult(tenantId, withdrawalId, result, now, {
          withdrawals: withdrawals.withdrawals,
          chainTx: { store: dynamoChainTxStore, clock: () => systemClock.now() },
        }),
      withdrawalBatch: (requestId, result, now) =>
        // A Bitcoin batch (one transaction of outputs): each item completes with its share of the fee.
        isBtcNetwork(parseRequestId(requestId).network)
          ? onBtcBatchResult(requestId, result, now, {
              withdrawals: withdrawals.withdrawals,
              chainTx: { store: dynamoChainTxStore, clock: () => systemClock.now() },
              wallet: () => (engine ??= chainTxRuntime(cfg)).hotWallet(),
            })
          : onWithdrawalBatchResult(requestId, result, now, {
              withdrawals: withdrawals.withdrawals,
              chainTx: { store: dynamoChainTxStore, clock: () => systemClock.now() },
              calls: payoutCalls,
              receipt: (network, hash) => chainOf(network).receipt(hash),
            }),
      // A batch of pull subscriptions' charges: each cycle paid (the merchant credited) or failed.
      subscriptionCharges: (requestId, result, now) => onChargeBatchResult(requestId, result, now, (subscriptions ??= pullSubscriptionsRuntime(cfg))),
    },
    clock: systemClock,
  };
}
