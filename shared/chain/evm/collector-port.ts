/**
 * The subscription use cases' `Collector` port over the collector contract (contracts/SubscriptionCollector.sol,
 * docs/subscriptions-pull.md): the mandates (./mandate-port.ts), the look on chain that activates it
 * (`mandateState` and the token's `allowance`, by eth_call), its charges as chain-tx requests (one `chargeBatch` of
 * the period's charge, so a refused charge is reported by `ChargeFailed` rather than a revert), and their outcomes
 * read from the receipt's logs.
 */
import { Interface } from 'ethers';
import type { ChainTx } from '../../domain/chain-tx.js';
import { CHAIN_TX_REQUESTED, openChainTx, requestedPayload } from '../../domain/chain-tx.js';
import { CHAIN_TX_PURPOSES } from '../../domain/events.js';
import type { ChainTxAnnouncement } from '../../usecases/chain-tx/ports.js';
import type { WriteItem } from '../../usecases/ports.js';
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
  readonly clock: () => Date;
}

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
      if (!cfg.hotWallet) throw new Error('No hot wallet to sign the charge with');
      const wallet = await cfg.hotWallet();
      const units = BigInt(input.units);
      if (units > BigInt(input.mandate.perChargeCap)) throw new RangeError(`a charge of ${units} is above the mandate's cap ${input.mandate.perChargeCap}`);
      const tx = openChainTx(
        {
          network: input.mandate.network,
          reference: input.reference,
          purpose: CHAIN_TX_PURPOSES.subscriptionCharge,
          tenantId: input.tenantId,
          wallet,
          to: input.mandate.collector,
          data: chargeBatchData([{ mandate: mandateTerms(input.mandate), period: BigInt(input.period), amount: units }]),
          value: 0n,
        },
        cfg.clock(),
      );
      return cfg.requestItems(tx, { eventType: CHAIN_TX_REQUESTED, payload: requestedPayload(tx) });
    },
    async chargeOutcome(input) {
      const logs = await cfg.receiptLogs(input.network, input.txHash);
      if (!logs) return null;
      const outcome = chargeOutcomesOf(logs, input.mandate.collector).find((o) => o.mandateId.toLowerCase() === input.mandate.mandateId.toLowerCase());
      if (!outcome) return null;
      return outcome.ok ? { ok: true } : { ok: false, reason: outcome.reason };
    },
  };
}
