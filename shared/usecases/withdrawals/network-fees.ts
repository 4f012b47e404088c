import type { CurrencyDefinition } from '../../domain/currencies.js';
import type { Decimal } from '../../domain/money.js';
import { add } from '../../domain/money.js';
import type { NetworkFeeTable, WithdrawalQuote } from '../../domain/withdrawal-fees.js';
import { ADDRESS_ACTIVATION_FEES, quoteWithdrawal } from '../../domain/withdrawal-fees.js';

/**
 * What the withdrawal use cases need to price a withdrawal: the network fee table in force, i.e. the
 * domain's defaults with the operator's `WITHDRAWAL_NETWORK_FEES` overrides (shared/runtime/withdrawals.ts builds
 * it from the configuration). Tests pass their own table.
 */
export interface WithdrawalFeeDeps {
  readonly networkFees: NetworkFeeTable;
  /** Whether an address has never been used on its chain (TRON: never activated); absent where nobody can tell. */
  readonly isNewAddress?: (currency: CurrencyDefinition, address: string) => Promise<boolean>;
}

export interface PricedFees {
  /** The table to price this withdrawal with: the network fee includes the activation fee when due. */
  readonly networkFees: NetworkFeeTable;
  /** Null when the address is not new or nobody can tell; else the activation fee included above. */
  readonly isNewAddress: boolean | null;
  readonly activationFee: Decimal | null;
}

/** The fees for a withdrawal to `address`: a currency with an activation fee pays it for an address new on its chain. */
export async function feesForAddress(currency: CurrencyDefinition, address: string | undefined, deps: WithdrawalFeeDeps): Promise<PricedFees> {
  const activation = ADDRESS_ACTIVATION_FEES[currency.code];
  if (activation === undefined || address === undefined || !deps.isNewAddress)
    return { networkFees: deps.networkFees, isNewAddress: null, activationFee: null };
  const isNew = await deps.isNewAddress(currency, address);
  if (!isNew) return { networkFees: deps.networkFees, isNewAddress: false, activationFee: null };
  return {
    networkFees: { ...deps.networkFees, [currency.code]: add(deps.networkFees[currency.code], activation) },
    isNewAddress: true,
    activationFee: activation,
  };
}

export interface PriceWithdrawalInput {
  readonly currency: CurrencyDefinition;
  readonly amount: Decimal;
  /** The tenant's transaction fee percent. */
  readonly feePercent: Decimal;
  /** The destination, when known: an address new on its chain pays the activation fee. */
  readonly address?: string;
  /** true (creation, fee estimate): `amount` is what the recipient receives; false: the total leaving the balance. */
  readonly finalAmount?: boolean;
}

export interface PricedWithdrawal extends WithdrawalQuote {
  readonly isNewAddress: boolean | null;
  readonly activationFee: Decimal | null;
}

/**
 * The one price of a withdrawal: `POST /withdrawal/estimate/`, `POST /withdrawal/fee-estimate/` and
 * `POST /withdrawal/` all call this, so a quote is what the creation then holds (activation fee included).
 */
export async function priceWithdrawal(input: PriceWithdrawalInput, deps: WithdrawalFeeDeps): Promise<PricedWithdrawal> {
  const priced = await feesForAddress(input.currency, input.address, deps);
  const quote = quoteWithdrawal({
    currency: input.currency,
    amount: input.amount,
    feePercent: input.feePercent,
    finalAmount: input.finalAmount ?? true,
    networkFees: priced.networkFees,
  });
  return { ...quote, isNewAddress: priced.isNewAddress, activationFee: priced.activationFee };
}
