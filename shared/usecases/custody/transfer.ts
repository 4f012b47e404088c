import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { CUSTODY_BLOCKCHAINS, custodyCurrency, isCustodyBlockchain } from '../../domain/custody.js';
import { planTransfer } from '../../domain/custody.js';
import { CURRENCIES } from '../../domain/currencies.js';
import { GatewayError, InsufficientBalanceError } from '../../domain/errors.js';
import { parseDecimal } from '../../domain/money.js';
import { decimal } from '../schema.js';
import { findAccount } from './find-account.js';
import type { IdempotencyGuard } from '../ports.js';
import type { CustodyPorts } from './ports.js';
import { custodyTransferRecord } from './present.js';

/** `POST /custody/transfer` body (spec 4.8): amount a number of USDT. */
export const CustodyTransferBody = lazySchema(() =>
  z
    .object({
      from_account_id: z.string().trim().min(1).max(64),
      to_account_id: z.string().trim().min(1).max(64),
      blockchain: z.string().trim().min(1).max(10),
      amount: decimal({ positive: true }),
      reference: z.string().trim().max(255).optional(),
    })
    .meta({ id: 'CustodyTransferRequest' }),
);
export type CustodyTransferBody = z.output<ReturnType<typeof CustodyTransferBody>>;

/** What `POST /custody/transfer` answers (and an Idempotency-Key replays). */
export type CustodyTransferAnswer = ReturnType<typeof custodyTransferRecord>;

/**
 * An internal move between two active accounts of the tenant on one chain: ONE ledger transaction with the
 * transfer's record and the Idempotency-Key record when guarded, conditioned so the source never goes below zero
 * (400 `insufficient_funds`).
 */
export async function custodyTransfer(
  tenantId: string,
  body: CustodyTransferBody,
  deps: Pick<CustodyPorts, 'accounts' | 'transfers' | 'clock'>,
  idempotency: IdempotencyGuard<CustodyTransferAnswer> | null = null,
): Promise<CustodyTransferAnswer> {
  const chain = body.blockchain.toUpperCase();
  if (!isCustodyBlockchain(chain))
    throw new GatewayError('unsupported_blockchain', `Custody supports ${CUSTODY_BLOCKCHAINS.join(', ')}.`, { blockchain: body.blockchain });
  const currency = custodyCurrency(chain);
  if (currency === null) throw new GatewayError('unsupported_blockchain', `${chain} custody balances are not held by this deployment.`, { blockchain: chain });
  // A SOL balance is tokens at the account's own address (its key signs its withdrawals): a move in the ledger alone
  // would leave them where they are, so SOL moves between accounts are refused rather than desynchronised.
  if (chain === 'SOL') {
    throw new GatewayError('unsupported_blockchain', "SOL custody transfers are not available: each account's SOL stays at its own address.", {
      blockchain: chain,
    });
  }
  const amount = parseDecimal(body.amount, { field: 'amount', maxScale: CURRENCIES[currency].decimals, allowZero: false });
  const [from, to] = await Promise.all([findAccount(tenantId, body.from_account_id, deps), findAccount(tenantId, body.to_account_id, deps)]);
  const now = deps.clock.now();
  const { state, entry } = planTransfer({ transferId: randomUUID(), from, to, blockchain: chain, currency, amount, reference: body.reference ?? null }, now);
  const record = custodyTransferRecord(state);
  try {
    await deps.transfers.commit(state, entry, idempotency ? [idempotency.completeItem(record)] : []);
  } catch (error) {
    if (error instanceof InsufficientBalanceError) {
      throw new GatewayError('insufficient_funds', `The source account lacks ${amount} USDT on ${chain}.`, {
        available: error.details.available ?? '0',
        requested: amount,
        blockchain: chain,
      });
    }
    throw error;
  }
  return record;
}
