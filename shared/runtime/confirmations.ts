import type { Config } from '../config/config.js';
import type { CurrencyDefinition } from '../domain/currencies.js';

/** Confirmations a deposit needs in this deployment: the catalogue's, at most 2 on the local stack, or `PAYMENT_CONFIRMATIONS`. */
export function confirmationsPolicy(cfg: Config): (currency: CurrencyDefinition) => number {
  const override = cfg.PAYMENT_CONFIRMATIONS;
  const local = cfg.STAGE === 'local';
  return (c) => override ?? (local ? Math.min(c.confirmations, 2) : c.confirmations);
}
