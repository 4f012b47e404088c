import type { CurrencyDefinition } from '../../domain/currencies.js';
import { FIAT_CODES, findCurrency, findCurrencyByToken, isFiatCode, servedCurrencies } from '../../domain/currencies.js';
import { GatewayError, ValidationError } from '../../domain/errors.js';
import type { PaymentsDeps } from './ports.js';

/** Currencies a payment can be made in here: enabled, not switched off, and served by this deployment. */
export function payableCurrencies(deps: Pick<PaymentsDeps, 'rates' | 'served'>): CurrencyDefinition[] {
  return servedCurrencies('payments', deps.served, deps.rates.disabled);
}

const unsupported = (deps: Pick<PaymentsDeps, 'rates' | 'served'>, code: string, field: string) =>
  new GatewayError('invalid_currency', `The currency ${code} is not supported.`, {
    field,
    currency: code,
    supported_currencies: payableCurrencies(deps).map((c) => c.code),
  });

export interface CurrencyChoice {
  readonly currency?: string | undefined;
  readonly pay_currency?: string | undefined;
  readonly blockchain?: string | undefined;
  readonly token?: string | undefined;
}

/** The pay currency of any body form of spec 4.3: `currency`, `pay_currency`, or `blockchain` + `token`. */
export function resolvePayCurrency(body: CurrencyChoice, deps: Pick<PaymentsDeps, 'rates' | 'served'>): CurrencyDefinition {
  const payable = new Set(payableCurrencies(deps).map((c) => c.code));
  const code = body.currency ?? body.pay_currency;
  if (code !== undefined) {
    const found = findCurrency(code);
    if (!found || !payable.has(found.code)) throw unsupported(deps, code, body.currency !== undefined ? 'currency' : 'pay_currency');
    return found;
  }
  if (body.blockchain !== undefined && body.token !== undefined) {
    const found = findCurrencyByToken(body.blockchain, body.token);
    if (!found || !payable.has(found.code)) throw unsupported(deps, `${body.token}/${body.blockchain}`, 'token');
    return found;
  }
  if (body.blockchain !== undefined || body.token !== undefined) {
    const missing = body.blockchain === undefined ? 'blockchain' : 'token';
    throw ValidationError.field(missing, 'This field is required with ' + (missing === 'token' ? 'blockchain.' : 'token.'));
  }
  throw ValidationError.field('currency', 'This field is required unless blockchain and token are both given.');
}

export function resolvePriceCurrency(code: string | undefined): string {
  const value = code ?? 'USD';
  if (!isFiatCode(value)) {
    throw new GatewayError('invalid_currency', `The price currency ${value} is not supported.`, {
      field: 'price_currency',
      currency: value,
      supported_currencies: [...FIAT_CODES],
    });
  }
  return value;
}
