import type { CurrencyDefinition } from '../../domain/currencies.js';
import { DailyLimitError, GatewayError, ValidationError } from '../../domain/errors.js';
import type { Decimal } from '../../domain/money.js';
import { gt, isNegative, sub } from '../../domain/money.js';
import { usdValue } from '../../domain/rates.js';
import type { TenantLimits } from '../../domain/tenant.js';
import { currentRates, usdRatesOf } from '../rates/current-rates.js';
import type { RatesDeps } from '../rates/ports.js';
import type { WithdrawalCreation } from './ports.js';

/** What the tenant's withdrawal limits make of one withdrawal: its USD value and its share of the day's total. */
export interface WithdrawalLimitCheck {
  /** The amount in USD at the current rate; null when the tenant has no withdrawal limit (nothing was priced). */
  readonly amountUsd: Decimal | null;
  /** Added to the tenant's total of the day inside the creating transaction, conditioned on the daily limit. */
  readonly dayTotal: WithdrawalCreation['dayTotal'];
}

/**
 * The tenant's withdrawal limits (DESIGN section 10), the one check every withdrawal passes, from the main account,
 * a wallet or a custody account: `amount`, what the recipient receives, valued in USD at the current rate, must not
 * exceed `max_withdrawal_amount` (400 `invalid_request`, details.amount), nor alone the `daily_withdrawal_limit`
 * (DailyLimitError). The day's total itself is kept by the repository in the transaction that takes the hold
 * (`dayTotal`: one counter per tenant and day, `WITHDRAWALS#DAY#<day>`, conditioned so concurrent withdrawals never
 * pass the limit together). The counter only grows: a withdrawal cancelled, rejected or failed later still counts.
 */
export async function checkWithdrawalLimits(
  input: { readonly limits: TenantLimits; readonly currency: CurrencyDefinition; readonly amount: Decimal; readonly now: Date },
  deps: { readonly rates: RatesDeps },
): Promise<WithdrawalLimitCheck> {
  const { limits, currency, amount, now } = input;
  if (limits.max_withdrawal_amount === null && limits.daily_withdrawal_limit === null) return { amountUsd: null, dayTotal: null };
  // Tenant limits are in USD (DESIGN section 10): the amount the recipient receives, at the current rate.
  const amountUsd = usdValue(currency, amount, usdRatesOf(await currentRates(deps.rates, now)), 'half-up');
  if (amountUsd === null) throw new GatewayError('service_unavailable', `No USD rate for ${currency.code}; withdrawal limits cannot be checked.`);
  if (limits.max_withdrawal_amount !== null && gt(amountUsd, limits.max_withdrawal_amount)) {
    throw ValidationError.field('amount', `The amount of ${amountUsd} USD exceeds the maximum withdrawal amount of ${limits.max_withdrawal_amount} USD.`);
  }
  if (limits.daily_withdrawal_limit === null) return { amountUsd, dayTotal: null };
  if (isNegative(sub(limits.daily_withdrawal_limit, amountUsd))) throw new DailyLimitError('withdrawal', limits.daily_withdrawal_limit);
  return { amountUsd, dayTotal: { amountUsd, limitUsd: limits.daily_withdrawal_limit } };
}
