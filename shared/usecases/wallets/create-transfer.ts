import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { findCurrency } from '../../domain/currencies.js';
import { GatewayError, InsufficientBalanceError, ValidationError } from '../../domain/errors.js';
import { WORDING } from '../../domain/errors-wording.js';
import { lt, parseDecimal } from '../../domain/money.js';
import type { TransferType, WalletTransferState } from '../../domain/wallets.js';
import { acceptTransfer, sourceOf } from '../../domain/wallets.js';
import { checkCallbackUrlSyntax } from '../../net/callback-url.js';
import type { IdempotencyGuard } from '../ports.js';
import { decimal } from '../schema.js';
import { findWallet, WalletReference } from './find-wallet.js';
import type { WalletsPorts } from './ports.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * `POST /wallets/transfer-to-user/` (main -> wallet, `to_sub`) and `POST /wallets/withdraw-to-master/` (wallet ->
 * main, `to_master`), spec 4.5. Accepting records the transfer and holds the amount on the source in ONE
 * transaction (conditioned: never below zero), so a source that cannot cover it is refused at once with 400
 * `insufficient_balance` and nothing written; the wallet-transfers worker then settles it (settle-transfer.ts).
 */
export const TransferBody = lazySchema(() =>
  z
    .object({
      wallet_id: WalletReference(),
      currency: z.string().trim().min(1).max(20),
      amount: decimal({ positive: true }),
      callback_url: z.string().max(2048).nullable().optional(),
    })
    .meta({ id: 'WalletTransferRequest' }),
);
export type TransferBody = z.output<ReturnType<typeof TransferBody>>;

export const TransferAcknowledgement = lazySchema(() =>
  z.object({ status: z.literal('accepted'), transfer_id: z.string(), message: z.string() }).meta({ id: 'WalletTransferAccepted' }),
);
export type TransferAcknowledgement = LazyOutput<typeof TransferAcknowledgement>;

export const acknowledge = (t: WalletTransferState): TransferAcknowledgement => ({
  status: 'accepted',
  transfer_id: t.id,
  message: t.type === 'to_sub' ? 'Transfer to the sub-account accepted.' : 'Transfer to the master account accepted.',
});

export interface CreateTransferInput {
  readonly tenantId: string;
  readonly type: TransferType;
  readonly body: TransferBody;
  readonly idempotency?: IdempotencyGuard<WalletTransferState> | null;
}

export async function createTransfer(input: CreateTransferInput, deps: Pick<WalletsPorts, 'wallets' | 'transfers' | 'ledger' | 'settings' | 'clock'>) {
  const { tenantId, body } = input;
  const currency = findCurrency(body.currency.toUpperCase());
  if (!currency) throw ValidationError.field('currency', WORDING.unknown('currency code'));
  const amount = parseDecimal(body.amount, { field: 'amount', allowZero: false, maxScale: currency.decimals });
  const wallet = await findWallet(tenantId, body.wallet_id, deps);
  const callbackUrl =
    body.callback_url === undefined || body.callback_url === null
      ? null
      : checkCallbackUrlSyntax(body.callback_url, { allowLoopback: deps.settings.allowLoopbackCallbacks }).toString();
  const now = deps.clock.now();
  const change = acceptTransfer({ id: randomUUID(), tenantId, type: input.type, walletId: wallet.walletId, currency: currency.code, amount, callbackUrl }, now);
  const source = sourceOf(change.state);
  const insufficient = (available: string) =>
    new GatewayError('insufficient_balance', `The available balance of ${available} ${currency.code} is lower than ${amount} ${currency.code}.`, {
      available,
      requested: amount,
      total_with_fees: amount,
      currency: currency.code,
    });
  const before = await deps.ledger.balance(tenantId, source, currency.code);
  if (lt(before.amount, amount)) throw insufficient(before.amount);
  const guard = input.idempotency;
  try {
    return await deps.transfers.create(change, now, guard ? (stored) => [guard.completeItem(stored)] : undefined);
  } catch (error) {
    if (error instanceof InsufficientBalanceError) throw insufficient((await deps.ledger.balance(tenantId, source, currency.code)).amount);
    throw error;
  }
}
