import { findCurrency } from '../../domain/currencies.js';
import type { Decimal } from '../../domain/money.js';
import { scaleOf, toFixed } from '../../domain/money.js';

/**
 * A ledger amount as shown: padded to the currency's display precision, never rounded (an amount with
 * more places, e.g. 18-decimal DAI dust, keeps them all), so what is shown is exactly what is held.
 */
export function showAmount(value: Decimal, currency: string): string {
  const precision = findCurrency(currency)?.displayPrecision ?? 8;
  return toFixed(value, Math.max(precision, scaleOf(value)), 'down');
}
