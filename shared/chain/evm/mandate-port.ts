/**
 * The subscription use cases' `Mandates` port without a chain client (the subscriptions API ships no ethers): a pull
 * subscription's mandate on the plan's network and its `setup` (shared/chain/evm/mandate.ts). The workers' `Collector`
 * (./collector-port.ts) extends it with the chain reads and the charges.
 */
import type { CurrencyDefinition } from '../../domain/currencies.js';
import { findCurrency } from '../../domain/currencies.js';
import { ValidationError } from '../../domain/errors.js';
import { toBaseUnits } from '../../domain/money.js';
import type { PullMandate } from '../../domain/subscriptions.js';
import type { Mandates, PullSetup } from '../../usecases/subscriptions/ports.js';
import type { MandateTerms } from './mandate.js';
import { collectorSetup, mandateId, mandatePeriodSeconds, mandateSalt, normalizeMandate } from './mandate.js';

/** Periods' worth the setup proposes to approve (docs/subscriptions-pull.md: the subscriber may approve less or more). */
export const PROPOSED_ALLOWANCE_PERIODS = 12n;

export interface MandatesConfig {
  /** The collector's address (the same on every EVM network); absent: pull is not offered. */
  readonly collector: string | undefined;
  readonly tokenContract: (currency: CurrencyDefinition) => string | null;
  /** The network's chain id where this deployment reaches it (null: no RPC endpoint configured for it). */
  readonly chainId: (network: string) => number | null;
  /** The hot wallet's address: the payee of the charges (null: no key configured). */
  readonly hotWalletAddress: (() => Promise<string>) | null;
}

export const mandateTerms = (m: PullMandate): MandateTerms => ({
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

export function evmMandates(cfg: MandatesConfig): Mandates {
  return {
    async mandate(input) {
      const found = findCurrency(input.currency);
      if (!found || found.family !== 'evm' || found.native || !found.isStable)
        refuse(`Pull collection charges an EVM stablecoin (USDT, USDC, DAI on an EVM network); the plan's currency ${input.currency} is not one.`);
      const currency = found as CurrencyDefinition;
      const token = cfg.tokenContract(currency);
      const chainId = cfg.chainId(currency.network);
      const collector = cfg.collector;
      const hotWallet = cfg.hotWalletAddress;
      if (!collector || !token || chainId === null || !hotWallet)
        return refuse(`This deployment has no subscription collector on the ${currency.network} network; use "push".`);
      const units = toBaseUnits(input.amount, currency.decimals);
      const terms = normalizeMandate({
        subscriber: input.subscriber,
        token,
        payee: await hotWallet(),
        perChargeCap: units,
        perPeriodCap: units,
        periodSeconds: mandatePeriodSeconds(input.interval, input.intervalCount),
        start: input.start,
        salt: mandateSalt(input.subscriptionId),
      });
      return {
        units: units.toString(),
        mandate: {
          network: currency.network,
          chainId,
          collector: collectorSetup({ chainId, collector, terms, allowance: units }).collector,
          subscriber: terms.subscriber,
          token: terms.token,
          payee: terms.payee,
          perChargeCap: units.toString(),
          perPeriodCap: units.toString(),
          periodSeconds: terms.periodSeconds,
          start: terms.start,
          salt: terms.salt.toString(),
          mandateId: mandateId(terms),
        },
      };
    },
    setup(m): PullSetup {
      const terms = mandateTerms(m);
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
  };
}
