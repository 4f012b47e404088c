import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { chainAddressForm } from '../../domain/chain-addresses.js';
import { findCurrency } from '../../domain/currencies.js';
import {
  CUSTODY_BLOCKCHAINS,
  CUSTODY_MINIMUMS,
  custodyBlockchainOf,
  custodyCurrency,
  isActiveAccount,
  isCustodyBlockchain,
  reviewReasons,
  rollingRoom,
} from '../../domain/custody.js';
import { GatewayError, InsufficientBalanceError } from '../../domain/errors.js';
import { custodyAccount } from '../../domain/ledger.js';
import { isPositive, jsonNumber, lt, parseDecimal } from '../../domain/money.js';
import type { TenantLimits } from '../../domain/tenant.js';
import type { WithdrawalState } from '../../domain/withdrawals.js';
import { awaitingReview, expectedWithdrawalMs, isOpen, openWithdrawal, pricedWithdrawal } from '../../domain/withdrawals.js';
import { checkCallbackUrlSyntax } from '../../net/callback-url.js';
import type { IdempotencyGuard } from '../ports.js';
import { decimal } from '../schema.js';
import { checkWithdrawalLimits } from '../withdrawals/limits.js';
import { priceWithdrawal } from '../withdrawals/network-fees.js';
import { requireAddress } from '../withdrawals/resolve.js';
import { findAccount } from './find-account.js';
import type { CustodyWithdrawalPorts } from './ports.js';
import { lazySchema } from '../../domain/lazy-schema.js';

/** `POST /custody/withdraw` body (spec 4.8): amount a number of USDT, fees deducted from it. */
export const CustodyWithdrawBody = lazySchema(() =>
  z
    .object({
      account_id: z.string().trim().min(1).max(64),
      blockchain: z.string().trim().min(1).max(10),
      amount: decimal({ positive: true }),
      destination_address: z.string().trim().min(1).max(255),
      callback_url: z.string().max(2048).optional(),
      custom_id: z.string().max(64).optional(),
      memo: z.string().max(255).optional(),
    })
    .meta({ id: 'CustodyWithdrawRequest' }),
);
export type CustodyWithdrawBody = z.output<ReturnType<typeof CustodyWithdrawBody>>;

export const CustodyWithdrawalRecord = lazySchema(() =>
  z
    .object({
      withdrawal_id: z.string(),
      account_id: z.string(),
      blockchain: z.enum(CUSTODY_BLOCKCHAINS),
      amount: z.number().meta({ description: 'What leaves the account, in USDT (fees included).' }),
      fee: z.number().meta({ description: 'Network and platform fees, deducted from amount.' }),
      net_amount: z.number().meta({ description: 'What the destination receives.' }),
      destination_address: z.string(),
      status: z.string().meta({ description: 'pending, processing, completed, failed, cancelled or rejected.' }),
      review: z
        .object({ status: z.enum(['awaiting_review', 'approved', 'rejected']), reasons: z.array(z.string()) })
        .nullable()
        .meta({
          description:
            "The security review the tenant's policy asked for (amount_over_threshold, rolling_total_over_threshold: the account's last 24 hours with it would pass the threshold, destination_not_allowed); null when none.",
        }),
      created_at: z.string(),
      estimated_completion_time: z.string().nullable().meta({ description: 'Null while it waits for review: no time can be promised then.' }),
      custom_id: z.string().nullable(),
      transaction_hash: z.string().nullable().meta({ description: 'The chain transaction that paid it; null until completed.' }),
    })
    .meta({ id: 'CustodyWithdrawal' }),
);

/**
 * A custody withdrawal as the custody group shows it, created or read (`GET /custody/withdrawals/{id}`): its own
 * record, never the main account's withdrawal record (`GET /withdrawal/{id}/` does not know it).
 */
export function custodyWithdrawalRecord(w: WithdrawalState) {
  const currency = findCurrency(w.currency);
  const review = w.review ? { status: w.review.decision ?? 'awaiting_review', reasons: [...w.review.reasons] } : null;
  const eta = currency && !awaitingReview(w) && isOpen(w) ? new Date(Date.parse(w.createdAt) + expectedWithdrawalMs(currency)).toISOString() : null;
  return {
    withdrawal_id: w.id,
    account_id: w.custodyAccountId ?? '',
    blockchain: custodyBlockchainOf(w.currency) ?? w.network,
    amount: jsonNumber(w.totalDeducted),
    fee: jsonNumber(w.totalFee),
    net_amount: jsonNumber(w.amount),
    destination_address: w.address,
    status: w.status,
    review,
    created_at: w.createdAt,
    estimated_completion_time: eta,
    custom_id: w.customId,
    transaction_hash: w.transactionHash,
  };
}

export interface CustodyWithdrawInput {
  readonly tenantId: string;
  readonly feePercent: string;
  /** The tenant's withdrawal limits (USD), the ones main-account withdrawals obey. */
  readonly limits: TenantLimits;
  readonly body: CustodyWithdrawBody;
  readonly idempotency?: IdempotencyGuard<WithdrawalState> | null;
}

/** A concurrent withdrawal of the account moved its rolling total between the read and the write: read and decide again. */
class RollingTotalMovedError extends Error {
  constructor() {
    super("The custody account's rolling total moved meanwhile.");
    this.name = 'RollingTotalMovedError';
  }
}

/** Reads of the rolling total before a withdrawal whose total keeps moving is held for review. */
const ROLLING_ATTEMPTS = 4;

/**
 * A custody withdrawal: the account's USDT on a chain to an external address. The whole `amount` is held on the
 * account (`amount` -> `locked`) in the creating transaction, so concurrent withdrawals never overdraw; the fees
 * come out of it (the destination receives `net_amount`). The tenant's withdrawal limits apply as to any withdrawal
 * (`checkWithdrawalLimits`). The tenant's review policy may hold it `pending` for the operator: above the threshold,
 * or taking the account's rolling 24-hour total over it (that total kept in the same transaction, conditioned, so
 * concurrent withdrawals cannot both slip under it), or to a destination off the allowlist. Otherwise the withdrawal
 * batcher hands it to the chain-tx engine like any withdrawal, except on SOL, where the custody-solana worker signs
 * and follows it (shared/usecases/custody/solana-withdrawals.ts).
 */
export async function custodyWithdraw(input: CustodyWithdrawInput, deps: CustodyWithdrawalPorts) {
  const { tenantId, body } = input;
  const chain = body.blockchain.toUpperCase();
  if (!isCustodyBlockchain(chain))
    throw new GatewayError('unsupported_blockchain', `Custody supports ${CUSTODY_BLOCKCHAINS.join(', ')}.`, { blockchain: body.blockchain });
  const code = custodyCurrency(chain);
  const currency = code === null ? undefined : findCurrency(code);
  // The network sent on here decides, not the catalogue's `enabled.withdrawals`: that flag is the main account's and
  // the wallets' (off for USDTSOL, their funds are never at a Solana address). A custody account's USDT is sent by
  // the hot wallet on EVM and TRON (deposits are swept to the treasury), and on SOL from the account's own address,
  // its KMS key signing and the platform's fee payer paying (served with SOLANA_RPC_URL, the mint and that key).
  if (!currency || !deps.served.withdrawals.has(currency.network)) {
    throw new GatewayError('unsupported_blockchain', `${chain} withdrawals are not sent by this deployment.`, { blockchain: chain });
  }
  const account = await findAccount(tenantId, body.account_id, deps);
  if (!isActiveAccount(account))
    throw new GatewayError('invalid_request', `The account is ${account.status}.`, { account_id: [`The account is ${account.status}.`] });
  requireAddress(currency, body.destination_address, deps.served);
  const amount = parseDecimal(body.amount, { field: 'amount', allowZero: false, maxScale: currency.displayPrecision });
  const minimum = CUSTODY_MINIMUMS[chain];
  if (lt(amount, minimum)) {
    throw new GatewayError('minimum_amount_not_met', `The minimum custody withdrawal on ${chain} is ${minimum} USDT.`, {
      minimum,
      requested: amount,
      blockchain: chain,
    });
  }
  const totals = await priceWithdrawal({ currency, amount, feePercent: input.feePercent, address: body.destination_address, finalAmount: false }, deps.fees);
  if (!isPositive(totals.amount)) {
    throw new GatewayError('minimum_amount_not_met', `The fees of ${totals.totalFee} USDT leave nothing to send.`, {
      minimum,
      requested: amount,
      fees: totals.totalFee,
      blockchain: chain,
    });
  }
  const callbackUrl =
    body.callback_url === undefined ? null : checkCallbackUrlSyntax(body.callback_url, { allowLoopback: deps.settings.allowLoopbackCallbacks }).toString();
  const now = deps.clock.now();
  const readRolling = () => deps.rollingTotals.read(tenantId, account.accountId, now);
  // The tenant's limits, as on every withdrawal: what the destination receives, in USD; the day's total is the one
  // main-account and wallet withdrawals add to, kept in the transaction that takes the hold.
  const [{ amountUsd, dayTotal }, policy, firstRead] = await Promise.all([
    checkWithdrawalLimits({ limits: input.limits, currency, amount: totals.amount, now }, deps),
    deps.policies.get(tenantId),
    readRolling(),
  ]);
  const sameAddress = (a: string, b: string) => chainAddressForm(currency.family, a) === chainAddressForm(currency.family, b);
  const id = randomUUID();
  const guard = input.idempotency;
  const create = async (attempt: number) => {
    const last = attempt === ROLLING_ATTEMPTS;
    const rolling = attempt === 1 ? firstRead : await readRolling();
    const reasons = reviewReasons(policy, { amount, rollingTotal: rolling.total, destination: body.destination_address }, sameAddress);
    // The total kept moving under concurrent withdrawals of the account: the operator decides rather than another read.
    if (last && reasons.length === 0 && policy.threshold !== null) reasons.push('rolling_total_over_threshold');
    const change = openWithdrawal(
      {
        id,
        tenantId,
        ...pricedWithdrawal(currency, totals),
        address: body.destination_address,
        customId: body.custom_id ?? null,
        callbackUrl,
        accountId: null,
        custodyAccountId: account.accountId,
        review: reasons.length === 0 ? null : { reasons, decision: null, decidedBy: null, decidedAt: null, note: null },
        priceAmount: null,
        priceCurrency: null,
        amountUsd,
      },
      now,
    );
    // Only what goes out unreviewed adds to the rolling total, on condition that it is still what was read.
    const conditions =
      reasons.length === 0 ? { items: rolling.add(amount, rollingRoom(policy, amount)), refused: () => new RollingTotalMovedError() } : undefined;
    return deps.withdrawals.create(
      { change, dayTotal, ...(conditions ? { conditions } : {}), ...(guard ? { alsoWrite: (stored: WithdrawalState) => [guard.completeItem(stored)] } : {}) },
      now,
    );
  };
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await create(attempt);
      } catch (error) {
        if (!(error instanceof RollingTotalMovedError) || attempt === ROLLING_ATTEMPTS) throw error;
      }
    }
  } catch (error) {
    if (!(error instanceof InsufficientBalanceError)) throw error;
    const available = (await deps.ledger.balance(tenantId, custodyAccount(account.accountId), currency.code)).amount;
    throw new GatewayError('insufficient_funds', `The account holds ${available} USDT on ${chain}, less than ${amount}.`, {
      available,
      requested: amount,
      blockchain: chain,
    });
  }
}
