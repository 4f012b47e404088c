import type { AddressType } from '../../domain/addresses.js';
import { checkAddress, EXPECTED_FORMAT } from '../../domain/addresses.js';
import type { CurrencyDefinition } from '../../domain/currencies.js';
import { findCurrency, findCurrencyByToken, servedCurrencies } from '../../domain/currencies.js';
import { GatewayError, ValidationError } from '../../domain/errors.js';
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

/** Null when the address suits the currency's chain; else what is wrong. */
export function addressProblem(currency: CurrencyDefinition, address: string): AddressProblem {
  const type = addressTypeOfCurrency(currency);
  const check = checkAddress(type, address);
  return check.valid ? null : { type, message: check.error };
}

/** 400 `invalid_address` (details.address, details.expected_format) for a withdrawal destination. */
export function requireAddress(currency: CurrencyDefinition, address: string): void {
  const problem = addressProblem(currency, address);
  if (problem) throw new GatewayError('invalid_address', problem.message, { address, expected_format: EXPECTED_FORMAT[problem.type] });
}
