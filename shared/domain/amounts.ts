import { findCurrency } from './currencies.js';
import type { Decimal } from './money.js';
import { scaleOf, toFixed } from './money.js';

/**
 * How an amount is spelled in every answer and webhook payload (DESIGN section 10), in ONE place: the presenters
 * of withdrawals, history items, exports, wallet transfers, custody records and the payloads of their events all
 * call these, so the same amount of one movement reads the same wherever it is shown.
 *
 * - A withdrawal's amounts (main, wallet or custody: amount, fees, total deducted) have 8 places, as the
 *   interface's withdrawal and estimate records show them: `"5.00000000"`.
 * - Every other amount of a currency (a payment's, a balance's, a wallet transfer's, an adjustment's, a custody
 *   deposit's or transfer's) has the currency's display precision (min(decimals, 8): USDT `"5.000000"`), the
 *   exact base-unit amount on chain.
 *
 * Strings are padded, never rounded: an amount with more places than its spelling (18-decimal dust) keeps them
 * all, so what is shown is exactly what is held. Where the interface says "number" (the withdrawal list, custody
 * records) the amount is `jsonNumber` (shared/domain/money.ts): its exact canonical decimal (`5`, `4.25`), never a
 * float.
 */

/** Which rule spells an amount: a withdrawal's (8 places) or any other movement's (the currency's display precision). */
export type AmountSpelling = 'withdrawal' | 'currency';

const WITHDRAWAL_PLACES = 8;

/** The places an amount of `currency` is spelled with (8 for a currency the catalogue does not know). */
export function placesOf(currency: string, spelling: AmountSpelling): number {
  return spelling === 'withdrawal' ? WITHDRAWAL_PLACES : (findCurrency(currency)?.displayPrecision ?? WITHDRAWAL_PLACES);
}

/** An amount as a decimal string of an answer or a webhook payload. */
export function amountText(value: Decimal, currency: string, spelling: AmountSpelling): string {
  return toFixed(value, Math.max(placesOf(currency, spelling), scaleOf(value)), 'down');
}
