/**
 * The subscription use cases' `Collector` port over the collector contract (contracts/SubscriptionCollector.sol,
 * docs/subscriptions-pull.md): a pull subscription's mandate and `setup`, the look on chain that activates it
 * (`mandateState` and the token's `allowance`, by eth_call), its charges as chain-tx requests (one `chargeBatch` of
 * the period's charge, so a refused charge is reported by `ChargeFailed` rather than a revert), and their outcomes
 * read from the receipt's logs.
 */
import { Interface, getAddress } from 'ethers';
import type { ChainTx } from '../../domain/chain-tx.js';
import { CHAIN_TX_REQUESTED, openChainTx, requestedPayload } from '../../domain/chain-tx.js';
import type { CurrencyDefinition } from '../../domain/currencies.js';
import { findCurrency } from '../../domain/currencies.js';
import { ValidationError } from '../../domain/errors.js';
import { CHAIN_TX_PURPOSES } from '../../domain/events.js';
import { toBaseUnits } from '../../domain/money.js';
import type { PullMandate } from '../../domain/subscriptions.js';
import type { ChainTxAnnouncement } from '../../usecases/chain-tx/ports.js';
import type { WriteItem } from '../../usecases/ports.js';
import type { Collector, PullSetup } from '../../usecases/subscriptions/ports.js';
import { ERC20_ABI } from './abi.js';
import type { CollectorReceiptLog, MandateTerms } from './collector.js';
import {
  SUBSCRIPTION_COLLECTOR_ABI,
  chargeBatchData,
  chargeOutcomesOf,
  collectorSetup,
  mandateId,
  mandatePeriodSeconds,
  mandateSalt,
  normalizeMandate,
} from './collector.js';

/** Periods' worth the setup proposes to approve (docs/subscriptions-pull.md: the subscriber may approve less or more). */
export const PROPOSED_ALLOWANCE_PERIODS = 12n;
/** `mandateState`'s status of an authorised mandate (0: none, 2: revoked). */
const AUTHORIZED = 1n;

const collectorIface = new Interface(SUBSCRIPTION_COLLECTOR_ABI);
const erc20Iface = new Interface(ERC20_ABI);

export interface CollectorPortConfig {
  /** The collector's address (the same on every EVM network); absent: pull is not offered. */
  readonly collector: string | undefined;
  readonly tokenContract: (currency: CurrencyDefinition) => string | null;
  /** The network's chain id (null: no RPC endpoint for it). */
  readonly chainId: (network: string) => Promise<number | null>;
  /** eth_call on the network (null: no RPC endpoint for it). */
  readonly call: (network: string) => ((tx: { to: string; data: string }) => Promise<string>) | null;
  readonly receiptLogs: (network: string, txHash: string) => Promise<readonly CollectorReceiptLog[] | null>;
  /** The hot wallet: the payee of the charges and their signer (null: no key configured). */
  readonly hotWallet: (() => Promise<{ keyId: string; address: string }>) | null;
  /** The writes that create a chain-tx request with its `chain_tx.requested` announcement (shared/store/chain-tx.ts). */
  readonly requestItems: (tx: ChainTx, announce: ChainTxAnnouncement) => readonly WriteItem[];
  readonly clock: () => Date;
}

const termsOf = (m: PullMandate): MandateTerms => ({
  subscriber: m.subscriber,
  token: m.token,
  payee: m.payee,
  perChargeCap: BigInt(m.perChargeCap),
  perPeriodCap: BigInt(m.perPeriodCap),
  periodSeconds: m.periodSeconds,
  start: m.start,
  salt: BigInt(m.salt),
});

const refuse = (message: string): never => {
  throw ValidationError.field('collection', message);
};

export function evmCollector(cfg: CollectorPortConfig): Collector {
  return {
    async mandate(input) {
      const currency = findCurrency(input.currency);
      if (!currency || currency.family !== 'evm' || currency.native || !currency.isStable)
        refuse(`Pull collection charges an EVM stablecoin (USDT, USDC, DAI on an EVM network); the plan's currency ${input.currency} is not one.`);
      const c = currency as CurrencyDefinition;
      const token = cfg.tokenContract(c);
      const chainId = await cfg.chainId(c.network);
      if (!cfg.collector || !token || chainId === null || !cfg.call(c.network) || !cfg.hotWallet)
        refuse(`This deployment has no subscription collector on the ${c.network} network; use "push".`);
      const payee = (await (cfg.hotWallet as NonNullable<CollectorPortConfig['hotWallet']>)()).address;
      const units = toBaseUnits(input.amount, c.decimals);
      const terms: MandateTerms = {
        subscriber: input.subscriber,
        token: token as string,
        payee,
        perChargeCap: units,
        perPeriodCap: units,
        periodSeconds: mandatePeriodSeconds(input.interval, input.intervalCount),
        start: input.start,
        salt: mandateSalt(input.subscriptionId),
      };
      const id = mandateId(terms);
      const n = normalizeMandate(terms);
      return {
        units: units.toString(),
        mandate: {
          network: c.network,
          chainId: chainId as number,
          collector: getAddress((cfg.collector as string).toLowerCase()),
          subscriber: n.subscriber,
          token: n.token,
          payee: n.payee,
          perChargeCap: units.toString(),
          perPeriodCap: units.toString(),
          periodSeconds: n.periodSeconds,
          start: n.start,
          salt: n.salt.toString(),
          mandateId: id,
        },
      };
    },
    setup(m): PullSetup {
      const terms = termsOf(m);
      const s = collectorSetup({ chainId: m.chainId, collector: m.collector, terms, allowance: terms.perPeriodCap * PROPOSED_ALLOWANCE_PERIODS });
      return {
        network: m.network,
        chain_id: s.chainId,
        collector: s.collector,
        token: s.token,
        payee: s.payee,
        subscriber: terms.subscriber,
        per_charge_cap: s.perChargeCap.toString(),
        per_period_cap: s.perPeriodCap.toString(),
        period_seconds: s.periodSeconds,
        start: s.start,
        salt: s.salt.toString(),
        mandate_id: s.mandateId,
        allowance: s.allowance.toString(),
        calls: { approve: s.approve, authorize: s.authorize },
        typed_data: s.typedData as unknown as Record<string, unknown>,
      };
    },
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
          data: chargeBatchData([{ mandate: termsOf(input.mandate), period: BigInt(input.period), amount: units }]),
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
