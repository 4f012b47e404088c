import { amountText } from '../../domain/amounts.js';
import type { Decimal } from '../../domain/money.js';

/**
 * A ledger amount as shown: padded to the currency's display precision, never rounded (an amount with
 * more places, e.g. 18-decimal DAI dust, keeps them all), so what is shown is exactly what is held. The rule is
 * the one of every amount of a currency (shared/domain/amounts.ts).
 */
export function showAmount(value: Decimal, currency: string): string {
  return amountText(value, currency, 'currency');
}
