import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { config } from '../../config/config.js';
import { GatewayError, InsufficientBalanceError, ValidationError } from '../../domain/errors.js';
import { holdEntry, MAIN } from '../../domain/ledger.js';
import type { Decimal } from '../../domain/money.js';
import { gt, isNegative, lt, parseDecimal, ROUND_PAYOUT, sub } from '../../domain/money.js';
import { convert, usdValue } from '../../domain/rates.js';
import type { Tenant } from '../../domain/tenant.js';
import type { WithdrawalEvent, WithdrawalState } from '../../domain/withdrawals.js';
import { withdrawalPayload, withdrawalQuote } from '../../domain/withdrawals.js';
import type { IdempotencyGuard } from '../../http/route.js';
import { checkCallbackUrlSyntax } from '../../net/callback-url.js';
import { ExtraItemConditionError, getBalance, postEntry } from '../../store/ledger.js';
import type { TransactItem } from '../../store/transact.js';
import { saveWithdrawalItem, withdrawalDayItem, withdrawalOutbox } from '../../store/withdrawals.js';
import { resolvePriceCurrency } from '../payments/resolve.js';
import { currentRates, usdRatesOf } from '../rates/current-rates.js';
import { defaultRatesDeps } from '../rates/deps.js';
import { decimalInput } from '../schema.js';
import type { WithdrawalFeeDeps } from './network-fees.js';
import { defaultWithdrawalFeeDeps, feesForAddress } from './network-fees.js';
import { requireAddress, resolveWithdrawalCurrency } from './resolve.js';

/**
 * `POST /withdrawal/` (spec 4.4): crypto form (amount + currency + address) or fiat form (price_amount +
 * price_currency + blockchain + token + address). The recipient receives `amount`; fees per DESIGN section 4, the
 * network fee from `deps.networkFees` (the defaults with the operator's `WITHDRAWAL_NETWORK_FEES`).
 * ONE ledger transaction moves `amount + fees` from the main account's `amount` pocket to `locked` (conditioned:
 * never below zero) together with the withdrawal item, its events and the idempotency record.
 */
export const CreateWithdrawalBody = z
  .object({
    amount: decimalInput.optional(),
    currency: z.string().trim().min(1).max(20).optional(),
    price_amount: decimalInput.optional(),
    price_currency: z.string().trim().min(1).max(10).optional(),
    blockchain: z.string().trim().min(1).max(20).optional(),
    token: z.string().trim().min(1).max(20).optional(),
    address: z.string().trim().min(1).max(255),
    account_id: z.string().min(1).max(64).optional(),
    custom_id: z.string().max(64).optional(),
    callback_url: z.string().max(2048).optional(),
  })
  .meta({ id: 'CreateWithdrawal' });
export type CreateWithdrawalBody = z.output<typeof CreateWithdrawalBody>;

export interface CreateWithdrawalInput {
  readonly body: CreateWithdrawalBody;
  readonly tenant: Tenant;
  readonly now: Date;
  readonly idempotency?: IdempotencyGuard<WithdrawalState> | null;
}

export async function createWithdrawal(input: CreateWithdrawalInput, deps: WithdrawalFeeDeps = defaultWithdrawalFeeDeps()): Promise<WithdrawalState> {
  const { body, tenant, now } = input;
  const currency = resolveWithdrawalCurrency(body);
  if (body.account_id !== undefined) {
    // account_id names a wallet; no wallets exist yet.
    throw ValidationError.field('account_id', `No wallet with id ${body.account_id}.`);
  }
  const callbackUrl = body.callback_url === undefined ? null : checkCallbackUrlSyntax(body.callback_url, { allowLoopback: config().ALLOW_LOOPBACK_CALLBACKS }).toString();
  let amount: string;
  let priceAmount: string | null = null;
  let priceCurrency: string | null = null;
  if (body.amount !== undefined) {
    amount = parseDecimal(body.amount, { field: 'amount', allowZero: false, maxScale: currency.displayPrecision });
  } else if (body.price_amount !== undefined) {
    priceAmount = parseDecimal(body.price_amount, { field: 'price_amount', allowZero: false, maxScale: 8 });
    priceCurrency = resolvePriceCurrency(body.price_currency);
    const rates = usdRatesOf(await currentRates(defaultRatesDeps(), now));
    amount = convert(priceAmount, priceCurrency, currency.code, rates, ROUND_PAYOUT, currency.displayPrecision);
  } else {
    throw ValidationError.field('amount', 'This field is required.');
  }
  requireAddress(currency, body.address);
  if (lt(amount, currency.minWithdrawal)) {
    throw new GatewayError('below_minimum', `The minimum withdrawal is ${currency.minWithdrawal} ${currency.code}.`, { minimum: currency.minWithdrawal, requested: amount, currency: currency.code });
  }
  const totals = withdrawalQuote(currency, amount, tenant.settings.transaction_fee, (await feesForAddress(currency, body.address, deps)).networkFees);
  const limits = tenant.settings.limits;
  const limitItems: TransactItem[] = [];
  const dailyLimit: Decimal | null = limits.daily_withdrawal_limit;
  if (limits.max_withdrawal_amount !== null || dailyLimit !== null) {
    // Tenant limits are in USD (DESIGN section 10): the amount the recipient receives, at the current rate.
    const amountUsd = usdValue(currency, amount, usdRatesOf(await currentRates(defaultRatesDeps(), now)), 'half-up');
    if (amountUsd === null) throw new GatewayError('service_unavailable', `No USD rate for ${currency.code}; withdrawal limits cannot be checked.`);
    if (limits.max_withdrawal_amount !== null && gt(amountUsd, limits.max_withdrawal_amount)) {
      throw ValidationError.field('amount', `The amount of ${amountUsd} USD exceeds the maximum withdrawal amount of ${limits.max_withdrawal_amount} USD.`);
    }
    if (dailyLimit !== null) {
      const room = sub(dailyLimit, amountUsd);
      if (isNegative(room)) throw dailyLimitError(dailyLimit);
      limitItems.push(withdrawalDayItem(tenant.id, now.toISOString().slice(0, 10), amountUsd, room, now));
    }
  }
  const id = randomUUID();
  const at = now.toISOString();
  const w: WithdrawalState = {
    id,
    tenantId: tenant.id,
    status: 'pending',
    currency: currency.code,
    network: currency.network,
    token: currency.token,
    amount: totals.amount,
    networkFee: totals.networkFee,
    platformFee: totals.platformFee,
    totalFee: totals.totalFee,
    totalDeducted: totals.totalDeducted,
    address: body.address,
    customId: body.custom_id ?? null,
    callbackUrl,
    accountId: null,
    priceAmount,
    priceCurrency,
    transactionHash: null,
    failureReason: null,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  const insufficient = (available: string) =>
    new GatewayError('insufficient_balance', `The available balance of ${available} ${currency.code} is lower than ${totals.totalDeducted} ${currency.code} (amount plus fees).`, {
      available,
      requested: totals.amount,
      total_with_fees: totals.totalDeducted,
      currency: currency.code,
    });
  const before = await getBalance(tenant.id, MAIN, currency.code);
  if (lt(before.amount, totals.totalDeducted)) throw insufficient(before.amount);
  const payload = withdrawalPayload(w, null);
  const events: WithdrawalEvent[] = [
    { type: 'withdrawal.created', key: 'created', payload },
    { type: 'withdrawal_status_update', key: 'status:pending', payload },
  ];
  try {
    await postEntry({
      tenantId: tenant.id,
      entryId: `withdrawal:${id}:hold`,
      entry: holdEntry({ account: MAIN, currency: currency.code, amount: totals.totalDeducted, reference: { kind: 'withdrawal', id } }),
      now,
      outbox: withdrawalOutbox(w, events, now),
      extraItems: [saveWithdrawalItem(w, null), ...limitItems, ...(input.idempotency ? [input.idempotency.completeItem(w)] : [])],
    });
  } catch (error) {
    if (error instanceof ExtraItemConditionError && dailyLimit !== null && limitItems.length > 0 && error.extraIndexes.includes(1)) throw dailyLimitError(dailyLimit);
    if (error instanceof InsufficientBalanceError) throw insufficient((await getBalance(tenant.id, MAIN, currency.code)).amount);
    throw error;
  }
  return w;
}

const dailyLimitError = (limit: Decimal) =>
  new ValidationError({ amount: [`The withdrawal would exceed the daily withdrawal limit of ${limit} USD.`] }, 'The daily withdrawal limit is reached.');
