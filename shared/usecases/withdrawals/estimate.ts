import * as z from 'zod';
import type { CurrencyDefinition } from '../../domain/currencies.js';
import { defaultCurrency, findCurrency, findNetwork, NETWORK_CODES, withdrawalMinimum } from '../../domain/currencies.js';
import { CUSTODY_BLOCKCHAINS, CUSTODY_MINIMUMS, custodyCurrency } from '../../domain/custody.js';
import { GatewayError, ValidationError } from '../../domain/errors.js';
import { MAIN } from '../../domain/ledger.js';
import type { Decimal } from '../../domain/money.js';
import { isPositive, jsonNumber, lt, parseDecimal } from '../../domain/money.js';
import type { Tenant } from '../../domain/tenant.js';
import { eight } from '../../domain/withdrawal-fees.js';
import { checkCurrencyAgreement, decimalInput } from '../schema.js';
import type { PricedWithdrawal } from './network-fees.js';
import { priceWithdrawal } from './network-fees.js';
import type { CatalogueDeps, WithdrawalsDeps } from './ports.js';
import { addressProblem, minimumTo, requireAddress, resolveWithdrawalCurrency, withdrawableCurrencies } from './resolve.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * Read-only withdrawal answers (spec 4.4): estimate (record 2.3), fee estimate, minimum amount (variant A by
 * currency, variant B by blockchain + token), limits and the currencies with a positive balance. Nothing here
 * writes.
 */

/** The activation fields of an answer: present when the destination is new on its chain. */
const activation = (p: PricedWithdrawal): Record<string, unknown> =>
  p.isNewAddress === true ? { is_new_address: true, address_activation_fee: eight(p.activationFee ?? '0') } : {};

export const EstimateWithdrawalBody = lazySchema(() =>
  z
    .object({
      amount: decimalInput(),
      currency: z.string().trim().min(1).max(20).optional(),
      blockchain: z.string().trim().min(1).max(20).optional(),
      token: z.string().trim().min(1).max(20).optional(),
      address: z.string().max(255).optional(),
      final_amount: z.boolean().optional(),
    })
    .check(checkCurrencyAgreement())
    .meta({ id: 'EstimateWithdrawal' }),
);
export type EstimateWithdrawalBody = LazyOutput<typeof EstimateWithdrawalBody>;

export async function estimateWithdrawal(
  body: EstimateWithdrawalBody,
  tenant: Tenant,
  deps: Pick<WithdrawalsDeps, 'fees'> & CatalogueDeps,
): Promise<Record<string, unknown>> {
  const currency = resolveWithdrawalCurrency(body, deps);
  const amount = parseDecimal(body.amount, { field: 'amount', allowZero: false, maxScale: currency.displayPrecision });
  const problem = body.address === undefined ? null : addressProblem(currency, body.address, deps.served);
  if (problem) {
    throw new GatewayError('invalid_request', `The address is not a valid ${currency.network} address: ${problem.message}`, {
      address: body.address,
      blockchain: currency.network,
    });
  }
  const q = await priceWithdrawal(
    { currency, amount, feePercent: tenant.settings.transaction_fee, address: body.address, finalAmount: body.final_amount ?? false },
    deps.fees,
  );
  // The catalogue's minimum, or a Bitcoin output's dust limit where the address's is higher (spec: invalid_request here).
  const { minimum } = minimumTo(currency, body.address);
  if (lt(q.amount, minimum) || !isPositive(q.amount)) {
    throw new GatewayError('invalid_request', `The amount is below the minimum withdrawal of ${minimum} ${currency.code}.`, {
      minimum,
      currency: currency.code,
    });
  }
  return {
    withdrawal_id: null,
    status: 'estimate',
    amount: eight(q.amount),
    requested_amount: eight(q.requested),
    fee: eight(q.totalFee),
    platform_fee: eight(q.platformFee),
    network_fee: eight(q.networkFee),
    total_deducted: eight(q.totalDeducted),
    blockchain: currency.network,
    token: currency.token,
    currency: currency.code,
    ...activation(q),
  };
}

export const FeeEstimateBody = lazySchema(() =>
  z
    .object({ amount: decimalInput(), currency: z.string().trim().min(1).max(20), address: z.string().max(255).optional() })
    .meta({ id: 'WithdrawalFeeEstimate' }),
);
export type FeeEstimateBody = LazyOutput<typeof FeeEstimateBody>;

export async function feeEstimate(
  body: FeeEstimateBody,
  tenant: Tenant,
  deps: Pick<WithdrawalsDeps, 'fees'> & CatalogueDeps,
): Promise<Record<string, unknown>> {
  const currency = resolveWithdrawalCurrency(body, deps);
  const amount = parseDecimal(body.amount, { field: 'amount', allowZero: false, maxScale: currency.displayPrecision });
  if (body.address !== undefined) requireAddress(currency, body.address, deps.served);
  const t = await priceWithdrawal({ currency, amount, feePercent: tenant.settings.transaction_fee, address: body.address }, deps.fees);
  return {
    currency: currency.code,
    blockchain: currency.network,
    token: currency.token,
    amount: eight(t.amount),
    network_fee: eight(t.networkFee),
    transaction_fee: eight(t.platformFee),
    total_fee: eight(t.totalFee),
    total_deducted: eight(t.totalDeducted),
    min_amount: eight(withdrawalMinimum(currency)),
    ...activation(t),
  };
}

/**
 * Blockchains the interface names for the minimum-withdrawal check (spec section 1). Besides them every catalogue
 * network is accepted under its code or any of its aliases (`findNetwork`). With a token, a pair that names no
 * currency this deployment sends is `unsupported_token`; a blockchain nobody names is `unsupported_blockchain`.
 */
export const MIN_AMOUNT_BLOCKCHAINS = ['ETH', 'BSC', 'TRX', 'SOL', 'ARB', 'BASE', 'BTC', 'LTC', 'DOGE', 'MATIC', 'AVAX', 'XRP', 'ADA'] as const;

export const MinWithdrawalBody = lazySchema(() =>
  z
    .object({
      currency: z.string().trim().min(1).max(20).optional(),
      blockchain: z.string().trim().min(1).max(20).optional(),
      token: z.string().trim().min(1).max(20).optional(),
    })
    .check(checkCurrencyAgreement())
    .meta({ id: 'WithdrawalMinAmount' }),
);
export type MinWithdrawalBody = LazyOutput<typeof MinWithdrawalBody>;

/** A currency this deployment sends withdrawals of, with the minimum the withdrawal applies. */
interface SentCurrency {
  readonly currency: CurrencyDefinition;
  readonly minimum: Decimal;
}

/**
 * Every currency this deployment sends withdrawals of, with the minimum each withdrawal refuses below: the main
 * account's and wallets' (`withdrawableCurrencies`, `withdrawalMinimum`), then custody's USDT of a chain sent on only
 * from custody accounts (USDT on Solana, where `SOLANA_RPC_URL`, the mint and the fee payer's key are configured), at
 * the custody minimum `POST /custody/withdraw` applies.
 */
const mainMinimum = (currency: CurrencyDefinition): SentCurrency => ({ currency, minimum: withdrawalMinimum(currency) });

function sentCurrencies(deps: CatalogueDeps): SentCurrency[] {
  const main = withdrawableCurrencies(deps).map(mainMinimum);
  const custody = CUSTODY_BLOCKCHAINS.flatMap((chain): SentCurrency[] => {
    const code = custodyCurrency(chain);
    const currency = code === null ? undefined : findCurrency(code);
    if (!currency || !deps.served.withdrawals.has(currency.network) || main.some((m) => m.currency.code === currency.code)) return [];
    return [{ currency, minimum: CUSTODY_MINIMUMS[chain] }];
  });
  return [...main, ...custody];
}

/**
 * Variant A by `currency`; variant B by `blockchain` (a catalogue network's code or alias, or one the interface
 * names) and `token`. Without a token, the network's currency this deployment sends is meant: USDT (the interface's
 * default) where it sends USDT there, else the native coin, else the first it sends (`defaultCurrency`), so every
 * network with a currency sent answers; a network with none is `unsupported_blockchain`, naming those that answer.
 * The minimum answered is the one the withdrawal applies (`sentCurrencies`).
 */
export function minWithdrawal(body: MinWithdrawalBody, deps: CatalogueDeps): Record<string, unknown> {
  const sent = sentCurrencies(deps);
  if (body.currency !== undefined) {
    const named = body.currency;
    // One not sent is refused as the withdrawal refuses it (invalid_currency with the supported currencies).
    const { currency, minimum } = sent.find((s) => s.currency.code === named) ?? mainMinimum(resolveWithdrawalCurrency({ currency: named }, deps));
    return { currency: currency.code, min_amount: jsonNumber(minimum), blockchain: currency.network, token: currency.token };
  }
  if (body.blockchain === undefined) throw ValidationError.field('blockchain', 'This field is required unless currency is given.');
  const chain = body.blockchain.toUpperCase();
  const network = findNetwork(chain);
  const supportedBlockchains = NETWORK_CODES.filter((n) => sent.some((s) => s.currency.network === n));
  if (!network && !(MIN_AMOUNT_BLOCKCHAINS as readonly string[]).includes(chain)) {
    throw new GatewayError('unsupported_blockchain', `The blockchain ${body.blockchain} is not supported.`, {
      blockchain: body.blockchain,
      supported_blockchains: supportedBlockchains,
    });
  }
  const onChain = network ? sent.filter((s) => s.currency.network === network.code) : [];
  let chosen: SentCurrency | undefined;
  if (body.token === undefined) {
    const meant = defaultCurrency(onChain.map((s) => s.currency));
    chosen = onChain.find((s) => s.currency.code === meant?.code);
    if (!chosen) {
      throw new GatewayError('unsupported_blockchain', `This deployment sends no withdrawals on ${chain}.`, {
        blockchain: body.blockchain,
        supported_blockchains: supportedBlockchains,
      });
    }
  } else {
    const token = body.token.toUpperCase();
    chosen = onChain.find((s) => s.currency.token === token);
    if (!chosen) {
      throw new GatewayError('unsupported_token', `The token ${token} is not sent on ${chain} by this deployment.`, {
        blockchain: chain,
        token,
        supported_tokens: onChain.map((s) => s.currency.token),
      });
    }
  }
  return { min_amount: jsonNumber(chosen.minimum), blockchain: chain, token: chosen.currency.token };
}

export function withdrawalLimits(tenant: Tenant, deps: Pick<WithdrawalsDeps, 'fees'> & CatalogueDeps): Record<string, unknown> {
  return {
    transaction_fee_percent: tenant.settings.transaction_fee,
    max_withdrawal_amount: tenant.settings.limits.max_withdrawal_amount,
    daily_withdrawal_limit: tenant.settings.limits.daily_withdrawal_limit,
    currencies: withdrawableCurrencies(deps).map((c) => ({
      currency: c.code,
      blockchain: c.network,
      token: c.token,
      min_amount: eight(withdrawalMinimum(c)),
      network_fee: eight(deps.fees.networkFees[c.code]),
      min_transaction_fee: eight(c.minFee),
    })),
  };
}

export async function availableCurrencies(tenantId: string, deps: Pick<WithdrawalsDeps, 'ledger'> & CatalogueDeps): Promise<Record<string, unknown>> {
  const rows = await deps.ledger.balances(tenantId, MAIN);
  const withdrawable = new Map(withdrawableCurrencies(deps).map((c) => [c.code as string, c]));
  const currencies = rows
    .filter((r) => withdrawable.has(r.currency) && isPositive(r.balance.amount))
    .map((r) => {
      const c = withdrawable.get(r.currency) as CurrencyDefinition;
      const available: Decimal = r.balance.amount;
      return { currency: c.code, blockchain: c.network, token: c.token, available: eight(available), min_amount: eight(withdrawalMinimum(c)) };
    });
  return { currencies };
}
