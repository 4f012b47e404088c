import * as z from 'zod';
import type { AddressContext, AddressType } from '../../domain/addresses.js';
import { addressTypeOf, checkAddress } from '../../domain/addresses.js';
import type { CurrencyDefinition } from '../../domain/currencies.js';
import { findCurrency } from '../../domain/currencies.js';
import { ValidationError } from '../../domain/errors.js';
import { WORDING } from '../../domain/errors-wording.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/** `POST /withdrawal/validate-address/` (spec 4.4): the address type comes from `type`, else `blockchain`, else `currency`. */
export const ValidateAddressBody = lazySchema(() =>
  z
    .object({
      address: z.string().max(255),
      currency: z.string().trim().min(1).max(20).optional(),
      blockchain: z.string().trim().min(1).max(20).optional(),
      type: z.string().trim().min(1).max(20).optional(),
      token: z.string().trim().min(1).max(20).optional(),
      memo: z.string().max(255).optional(),
    })
    .meta({ id: 'ValidateAddress' }),
);
export type ValidateAddressBody = LazyOutput<typeof ValidateAddressBody>;

export interface AddressValidation {
  readonly is_valid: boolean;
  readonly address: string;
  readonly type: AddressType | null;
  readonly blockchain: string | null;
  readonly token: string | null;
  readonly currency: string | null;
  readonly error_message: string | null;
  readonly warning: string | null;
}

const FAMILY_TYPES: Readonly<Record<string, AddressType>> = { evm: 'EVM', tron: 'TRX', btc: 'BTC', sol: 'SOL' };

export const addressTypeOfCurrency = (currency: CurrencyDefinition): AddressType => FAMILY_TYPES[currency.family] ?? 'EVM';

/** `context`: what the deployment serves; a Bitcoin address is valid only on its network (`btcNetwork`). */
export function validateAddress(body: ValidateAddressBody, context: AddressContext): AddressValidation {
  if (body.currency === undefined && body.blockchain === undefined && body.type === undefined) {
    throw new ValidationError({ currency: ['One of currency, blockchain or type is required.'] }, 'One of currency, blockchain or type is required.');
  }
  const currency = body.currency === undefined ? undefined : findCurrency(body.currency);
  if (body.currency !== undefined && !currency) throw ValidationError.field('currency', WORDING.unknown('currency code'));
  const fromType = body.type === undefined ? undefined : addressTypeOf(body.type);
  if (body.type !== undefined && !fromType) throw ValidationError.field('type', WORDING.unknown('address type'));
  const fromChain = body.blockchain === undefined ? undefined : addressTypeOf(body.blockchain);
  if (body.blockchain !== undefined && !fromChain) throw ValidationError.field('blockchain', WORDING.unknown('blockchain'));
  const type = fromType ?? fromChain ?? (currency ? addressTypeOfCurrency(currency) : undefined);
  if (!type) throw ValidationError.field('type', 'The address type could not be derived.');
  const blockchain = body.blockchain?.toUpperCase() ?? currency?.network ?? (type === 'EVM' ? null : type);
  const token = body.token?.toUpperCase() ?? currency?.token ?? null;
  const check = checkAddress(type, body.address, body.memo, context);
  return {
    is_valid: check.valid,
    address: body.address,
    type: check.valid ? type : null,
    blockchain,
    token,
    currency: currency?.code ?? null,
    error_message: check.valid ? null : check.error,
    warning: check.valid ? check.warning : null,
  };
}
