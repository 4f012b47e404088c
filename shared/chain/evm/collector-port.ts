/**
 * The subscription use cases' `Collector` port over the collector contract (contracts/SubscriptionCollector.sol,
 * docs/subscriptions-pull.md): the mandates (./mandate-port.ts), the look on chain that activates it
 * (`mandateState` and the token's `allowance`, by eth_call), its charges (pending with their cycles, then batched per
 * network and token into ONE `chargeBatch` chain-tx request: a refused charge is reported by `ChargeFailed`, never a
 * revert of the others), and their outcomes read from the receipt's logs.
 */
import { randomUUID } from 'node:crypto';
import { Interface } from 'ethers';
import type { ChainTx } from '../../domain/chain-tx.js';
import { CHAIN_TX_REQUESTED, openChainTx, requestedPayload } from '../../domain/chain-tx.js';
import { CHAIN_TX_PURPOSES } from '../../domain/events.js';
import type { ChainTxAnnouncement } from '../../usecases/chain-tx/ports.js';
import type { WriteItem } from '../../usecases/ports.js';
import type { PendingCharge } from '../../domain/subscriptions.js';
import type { Collector } from '../../usecases/subscriptions/ports.js';
import { ERC20_ABI } from './abi.js';
import type { CollectorReceiptLog } from './collector.js';
import { SUBSCRIPTION_COLLECTOR_ABI, chargeBatchData, chargeOutcomesOf } from './collector.js';
import type { MandatesConfig } from './mandate-port.js';
import { evmMandates, mandateTerms } from './mandate-port.js';

/** `mandateState`'s status of an authorised mandate (0: none, 2: revoked). */
const AUTHORIZED = 1n;

const collectorIface = new Interface(SUBSCRIPTION_COLLECTOR_ABI);
const erc20Iface = new Interface(ERC20_ABI);

export interface CollectorPortConfig extends MandatesConfig {
  /** eth_call on the network (null: no RPC endpoint for it). */
  readonly call: (network: string) => ((tx: { to: string; data: string }) => Promise<string>) | null;
  readonly receiptLogs: (network: string, txHash: string) => Promise<readonly CollectorReceiptLog[] | null>;
  /** The hot wallet: the signer of the charges (null: no key configured). */
  readonly hotWallet: (() => Promise<{ keyId: string; address: string }>) | null;
  /** The writes that create a chain-tx request with its `chain_tx.requested` announcement (shared/store/chain-tx.ts). */
  readonly requestItems: (tx: ChainTx, announce: ChainTxAnnouncement) => readonly WriteItem[];
  /** A chain-tx request as stored. */
  readonly request: (requestId: string) => Promise<ChainTx | undefined>;
  /** The charges pending their batch (shared/store/subscription-charges.ts). */
  readonly pending: {
    item(charge: PendingCharge): WriteItem;
    list(limit: number): Promise<PendingCharge[]>;
    /** Takes `charges` with `alsoWrite` in ONE transaction; false (nothing written) when one was taken meanwhile. */
    take(charges: readonly PendingCharge[], alsoWrite: readonly WriteItem[]): Promise<boolean>;
  };
  /** The most charges in one `chargeBatch` (a DynamoDB transaction takes them out with the request: at most 98). */
  readonly maxCharges: number;
  readonly clock: () => Date;
}

/** The reference of a batch of charges' chain-tx request. */
const batchReference = (): string => `subscription-charges:${randomUUID()}`;

export function evmCollector(cfg: CollectorPortConfig): Collector {
  return {
    ...evmMandates(cfg),
    async approvalSeen(m) {
      const call = cfg.call(m.network);
      if (!call) return false;
      const [state, allowance] = await Promise.all([
        call({ to: m.collector, data: collectorIface.encodeFunctionData('mandateState', [m.mandateId]) }),
        call({ to: m.token, data: erc20Iface.encodeFunctionData('allowance', [m.subscriber, m.collector]) }),
      ]);
      const [status] = collectorIface.decodeFunctionResult('mandateState', state) as unknown as [bigint];
      const [approved] = erc20Iface.decodeFunctionResult('allowance', allowance) as unknown as [bigint];
      return status === AUTHORIZED && approved >= BigInt(m.perChargeCap);
    },
    async chargeItems(input) {
      const units = BigInt(input.units);
      if (units > BigInt(input.mandate.perChargeCap)) throw new RangeError(`a charge of ${units} is above the mandate's cap ${input.mandate.perChargeCap}`);
      return [cfg.pending.item({ ...input, createdAt: cfg.clock().toISOString() })];
    },
    async dispatchCharges() {
      const pending = await cfg.pending.list(20 * cfg.maxCharges);
      if (pending.length === 0) return { batches: 0, charges: 0 };
      if (!cfg.hotWallet) throw new Error('No hot wallet to sign the charges with');
      const wallet = await cfg.hotWallet();
      const groups = new Map<string, PendingCharge[]>();
      for (const c of pending) {
        const key = `${c.mandate.network}#${c.mandate.token.toLowerCase()}#${c.mandate.collector.toLowerCase()}`;
        groups.set(key, [...(groups.get(key) ?? []), c]);
      }
      let batches = 0;
      let charges = 0;
      for (const group of groups.values()) {
        for (let i = 0; i < group.length; i += cfg.maxCharges) {
          const chunk = group.slice(i, i + cfg.maxCharges);
          const first = chunk[0] as PendingCharge;
          const tx = openChainTx(
            {
              network: first.mandate.network,
              reference: batchReference(),
              purpose: CHAIN_TX_PURPOSES.subscriptionCharge,
              tenantId: 'platform',
              wallet,
              to: first.mandate.collector,
              data: chargeBatchData(chunk.map((c) => ({ mandate: mandateTerms(c.mandate), period: BigInt(c.period), amount: BigInt(c.units) }))),
              value: 0n,
              items: chunk.map((c) => c.reference),
            },
            cfg.clock(),
          );
          // Taken meanwhile by another run: what is left pending goes out at the next run.
          if (!(await cfg.pending.take(chunk, cfg.requestItems(tx, { eventType: CHAIN_TX_REQUESTED, payload: requestedPayload(tx) })))) continue;
          batches++;
          charges += chunk.length;
        }
      }
      return { batches, charges };
    },
    async batchCharges(requestId) {
      return (await cfg.request(requestId))?.items ?? [];
    },
    async chargeOutcome(input) {
      const logs = await cfg.receiptLogs(input.network, input.txHash);
      if (!logs) return null;
      const outcome = chargeOutcomesOf(logs, input.mandate.collector).find(
        (o) => o.mandateId.toLowerCase() === input.mandate.mandateId.toLowerCase() && o.period === BigInt(input.period),
      );
      if (!outcome) return null;
      return outcome.ok ? { ok: true } : { ok: false, reason: outcome.reason };
    },
  };
}
