import { activeCurrencies, FIAT_CODES, findCurrency, isActive, isFiatCode } from '../../domain/currencies.js';
import { GatewayError } from '../../domain/errors.js';

/** Codes a conversion accepts: every active currency, and USD, EUR, GBP. */
export function supportedCodes(disabled: ReadonlySet<string>): string[] {
  return [...activeCurrencies(disabled).map((c) => c.code), ...FIAT_CODES];
}

/** 422 `invalid_currency` (details.currency, details.supported_currencies) unless `code` is supported. */
export function requireSupported(code: string, disabled: ReadonlySet<string>): string {
  if (isFiatCode(code)) return code;
  const currency = findCurrency(code);
  if (currency && isActive(currency, disabled)) return code;
  throw new GatewayError('invalid_currency', `The currency ${code} is not supported.`, {
    currency: code,
    supported_currencies: supportedCodes(disabled),
  });
}

/** Crypto amounts someone must pay round UP; fiat amounts are shown to the cent, half-even. */
export const roundingFor = (code: string) => (isFiatCode(code) ? ('half-even' as const) : ('up' as const));
