import type { ContractEnvironment, CurrencyDefinition } from '../../domain/currencies.js';
import type { PaymentState } from '../../domain/payments.js';
import type { TokenContracts } from '../payments/ports.js';

/** A payment as its checkout page reads it: the payment and the name of the merchant it pays. */
export interface CheckoutPage {
  readonly payment: PaymentState;
  readonly merchantName: string;
}

export interface CheckoutReader {
  /** The payment an unguessable checkout id names, or null. Reads only. */
  find(checkoutId: string): Promise<CheckoutPage | null>;
}

export interface CheckoutDeps {
  readonly checkouts: CheckoutReader;
  readonly contracts: TokenContracts;
  /** The chain ids payment URIs name (the local stack's chains use mainnet ids). */
  readonly environment: ContractEnvironment;
  confirmationsFor(currency: CurrencyDefinition): number;
}
