import type { AddressContext, AddressType } from '../../domain/addresses.js';
import { checkAddress, expectedFormat } from '../../domain/addresses.js';
import { btcDustLimit, decodeBtcAddress } from '../../domain/bitcoin.js';
import type { CurrencyDefinition } from '../../domain/currencies.js';
import { findCurrency, findCurrencyByToken, servedCurrencies, withdrawalMinimum } from '../../domain/currencies.js';
import { GatewayError, ValidationError } from '../../domain/errors.js';
import type { Decimal } from '../../domain/money.js';
import { fromBaseUnits, lt } from '../../domain/money.js';
import type { CatalogueDeps } from './ports.js';
import { addressTypeOfCurrency } from './validate-address.js';

/** Currencies a withdrawal can be made in: enabled for withdrawals, not switched off, and sent by this deployment. */
export const withdrawableCurrencies = (deps: CatalogueDeps): CurrencyDefinition[] => servedCurrencies('withdrawals', deps.served, deps.rates.disabled);

const unsupported = (code: string, field: string, deps: CatalogueDeps) =>
  new GatewayError('invalid_currency', `The currency ${code} is not supported for withdrawals.`, {
    field,
    currency: code,
    supported_currencies: withdrawableCurrencies(deps).map((c) => c.code),
  });

export interface WithdrawalCurrencyChoice {
  readonly currency?: string | undefined;
  readonly blockchain?: string | undefined;
  readonly token?: string | undefined;
}

/** The currency of a withdrawal body: `currency`, or `blockchain` + `token`. */
export function resolveWithdrawalCurrency(body: WithdrawalCurrencyChoice, deps: CatalogueDeps): CurrencyDefinition {
  const allowed = new Set(withdrawableCurrencies(deps).map((c) => c.code));
  if (body.currency !== undefined) {
    const found = findCurrency(body.currency);
    if (!found || !allowed.has(found.code)) throw unsupported(body.currency, 'currency', deps);
    return found;
  }
  if (body.blockchain !== undefined && body.token !== undefined) {
    const found = findCurrencyByToken(body.blockchain, body.token);
    if (!found || !allowed.has(found.code)) throw unsupported(`${body.token.toUpperCase()}/${body.blockchain.toUpperCase()}`, 'token', deps);
    return found;
  }
  if (body.blockchain !== undefined || body.token !== undefined) {
    const missing = body.blockchain === undefined ? 'blockchain' : 'token';
    throw ValidationError.field(missing, `This field is required with ${missing === 'token' ? 'blockchain' : 'token'}.`);
  }
  throw ValidationError.field('currency', 'This field is required unless blockchain and token are both given.');
}

export type AddressProblem = { readonly type: AddressType; readonly message: string } | null;

/**
 * Null when the address suits the currency's chain on this deployment (`context`: what it serves, whose
 * `btcNetwork` names the Bitcoin network whose addresses it pays); else what is wrong.
 */
export function addressProblem(currency: CurrencyDefinition, address: string, context: AddressContext): AddressProblem {
  const type = addressTypeOfCurrency(currency);
  const check = checkAddress(type, address, undefined, context);
  return check.valid ? null : { type, message: check.error };
}

/** 400 `invalid_address` (details.address, details.expected_format) for a withdrawal destination. */
export function requireAddress(currency: CurrencyDefinition, address: string, context: AddressContext): void {
  const problem = addressProblem(currency, address, context);
  if (problem) throw new GatewayError('invalid_address', problem.message, { address, expected_format: expectedFormat(problem.type, context) });
}

/** The smallest withdrawal to an address, and why: the catalogue's minimum, or the dust limit of its output type. */
export interface AddressMinimum {
  readonly minimum: Decimal;
  /** The output type whose dust limit sets it (a Bitcoin address's), or null: the catalogue's minimum. */
  readonly dustOf: string | null;
}

/**
 * The smallest amount `address` may be paid of `currency`: the catalogue's minimum (`withdrawalMinimum`), raised to
 * the dust limit of a Bitcoin output of the address's type (P2PKH 546, P2SH 540, P2WPKH 294, P2WSH and P2TR 330
 * satoshis), which no node relays below.
 */
export function minimumTo(currency: CurrencyDefinition, address: string | undefined): AddressMinimum {
  const minimum = withdrawalMinimum(currency);
  if (currency.family !== 'btc' || address === undefined) return { minimum, dustOf: null };
  const decoded = decodeBtcAddress(address);
  if (!decoded.valid) return { minimum, dustOf: null };
  const dust = fromBaseUnits(btcDustLimit(decoded.type), currency.decimals);
  return lt(minimum, dust) ? { minimum: dust, dustOf: decoded.type.toUpperCase() } : { minimum, dustOf: null };
}

/** 422 `below_minimum` (details.minimum, requested, currency) for a withdrawal of `amount` to `address`. */
export function requireMinimum(currency: CurrencyDefinition, address: string, amount: Decimal): void {
  const { minimum, dustOf } = minimumTo(currency, address);
  if (!lt(amount, minimum)) return;
  const message =
    dustOf === null
      ? `The minimum withdrawal is ${minimum} ${currency.code}.`
      : `The amount is below the dust limit of a ${dustOf} output: the minimum to this address is ${minimum} ${currency.code}.`;
  throw new GatewayError('below_minimum', message, { minimum, requested: amount, currency: currency.code });
}
