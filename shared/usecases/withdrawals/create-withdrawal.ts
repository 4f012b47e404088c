import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { GatewayError, InsufficientBalanceError, ValidationError } from '../../domain/errors.js';
import { lt, parseDecimal, ROUND_PAYOUT } from '../../domain/money.js';
import { convert } from '../../domain/rates.js';
import type { Tenant } from '../../domain/tenant.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import { openWithdrawal, pricedWithdrawal, sourceAccount } from '../../domain/withdrawals.js';
import { checkCallbackUrlSyntax } from '../../net/callback-url.js';
import type { IdempotencyGuard } from '../ports.js';
import { resolvePriceCurrency } from '../payments/resolve.js';
import { currentRates, usdRatesOf } from '../rates/current-rates.js';
import { checkAmountAndCurrency, decimal } from '../schema.js';
import { checkWithdrawalLimits } from './limits.js';
import { priceWithdrawal } from './network-fees.js';
import type { WithdrawalsDeps } from './ports.js';
import { requireAddress, requireMinimum, resolveWithdrawalCurrency } from './resolve.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * `POST /withdrawal/` (spec 4.4): crypto form (amount + currency + address) or fiat form (price_amount +
 * price_currency + blockchain + token + address). The recipient receives `amount`; fees per DESIGN section 4, the
 * network fee from `deps.networkFees` (the defaults with the operator's `WITHDRAWAL_NETWORK_FEES`).
 * ONE ledger transaction moves `amount + fees` from the main account's `amount` pocket to `locked` (conditioned:
 * never below zero) together with the withdrawal item, its events and the idempotency record.
 */
export const CreateWithdrawalBody = lazySchema(() =>
  z
    .object({
      amount: decimal({ positive: true }).optional(),
      currency: z.string().trim().min(1).max(20).optional(),
      price_amount: decimal({ maxScale: 8, positive: true }).optional(),
      price_currency: z.string().trim().min(1).max(10).optional(),
      blockchain: z.string().trim().min(1).max(20).optional(),
      token: z.string().trim().min(1).max(20).optional(),
      address: z.string().trim().min(1).max(255),
      account_id: z.string().min(1).max(64).optional(),
      custom_id: z.string().max(64).optional(),
      callback_url: z.string().max(2048).optional(),
    })
    .check(checkAmountAndCurrency())
    .meta({ id: 'CreateWithdrawal' }),
);
export type CreateWithdrawalBody = LazyOutput<typeof CreateWithdrawalBody>;

export interface CreateWithdrawalInput {
  readonly body: CreateWithdrawalBody;
  readonly tenant: Tenant;
  readonly now: Date;
  readonly idempotency?: IdempotencyGuard<WithdrawalState> | null;
}

export async function createWithdrawal(
  input: CreateWithdrawalInput,
  deps: Pick<WithdrawalsDeps, 'withdrawals' | 'ledger' | 'rates' | 'fees' | 'settings' | 'served' | 'wallets'>,
): Promise<WithdrawalState> {
  const { body, tenant, now } = input;
  const currency = resolveWithdrawalCurrency(body, deps);
  // account_id names a wallet of the tenant by its uuid: the hold and the payout are on that wallet, never main.
  if (body.account_id !== undefined && !(await deps.wallets?.exists(tenant.id, body.account_id))) {
    throw ValidationError.field('account_id', `No wallet with id ${body.account_id}.`);
  }
  const callbackUrl =
    body.callback_url === undefined ? null : checkCallbackUrlSyntax(body.callback_url, { allowLoopback: deps.settings.allowLoopbackCallbacks }).toString();
  let amount: string;
  let priceAmount: string | null = null;
  let priceCurrency: string | null = null;
  if (body.amount !== undefined) {
    amount = parseDecimal(body.amount, { field: 'amount', allowZero: false, maxScale: currency.displayPrecision });
  } else if (body.price_amount !== undefined) {
    priceAmount = parseDecimal(body.price_amount, { field: 'price_amount', allowZero: false, maxScale: 8 });
    priceCurrency = resolvePriceCurrency(body.price_currency);
    const rates = usdRatesOf(await currentRates(deps.rates, now));
    amount = convert(priceAmount, priceCurrency, currency.code, rates, ROUND_PAYOUT, currency.displayPrecision);
  } else {
    throw ValidationError.field('amount', 'This field is required.');
  }
  requireAddress(currency, body.address, deps.served);
  requireMinimum(currency, body.address, amount);
  const totals = await priceWithdrawal({ currency, amount, feePercent: tenant.settings.transaction_fee, address: body.address }, deps.fees);
  const { amountUsd, dayTotal } = await checkWithdrawalLimits({ limits: tenant.settings.limits, currency, amount, now }, deps);
  const change = openWithdrawal(
    {
      id: randomUUID(),
      tenantId: tenant.id,
      ...pricedWithdrawal(currency, totals),
      address: body.address,
      customId: body.custom_id ?? null,
      callbackUrl,
      accountId: body.account_id ?? null,
      priceAmount,
      priceCurrency,
      amountUsd,
    },
    now,
  );
  const source = sourceAccount(change.state);
  const insufficient = (available: string) =>
    new GatewayError(
      'insufficient_balance',
      `The available balance of ${available} ${currency.code} is lower than ${totals.totalDeducted} ${currency.code} (amount plus fees).`,
      {
        available,
        requested: totals.amount,
        total_with_fees: totals.totalDeducted,
        currency: currency.code,
      },
    );
  const before = await deps.ledger.balance(tenant.id, source, currency.code);
  if (lt(before.amount, totals.totalDeducted)) throw insufficient(before.amount);
  const guard = input.idempotency;
  try {
    return await deps.withdrawals.create({ change, dayTotal, ...(guard ? { alsoWrite: (stored: WithdrawalState) => [guard.completeItem(stored)] } : {}) }, now);
  } catch (error) {
    if (error instanceof InsufficientBalanceError) throw insufficient((await deps.ledger.balance(tenant.id, source, currency.code)).amount);
    throw error;
  }
}
