import { ConflictError } from '../../domain/errors.js';
import type { WalletTransferState } from '../../domain/wallets.js';
import { awaitsSettlement, settleTransfer as settle, WalletGoneError } from '../../domain/wallets.js';
import type { WalletsPorts } from './ports.js';

/**
 * The wallet-transfers worker's step: an accepted transfer becomes `completed` (ONE ledger entry releases the
 * hold and credits the destination) or `failed` when its wallet is gone (the hold returns to the source).
 * Idempotent: a settled transfer is left as it is, and a concurrent settlement loses on the version.
 */
export async function settleTransfer(
  ref: { readonly tenantId: string; readonly transferId: string },
  deps: Pick<WalletsPorts, 'wallets' | 'transfers' | 'clock'>,
): Promise<WalletTransferState | null> {
  const transfer = await deps.transfers.get(ref.tenantId, ref.transferId);
  if (transfer === null || !awaitsSettlement(transfer)) return transfer;
  const wallet = await deps.wallets.get(ref.tenantId, { kind: 'uuid', walletId: transfer.walletId });
  const gone = { ok: false as const, reason: 'The wallet no longer exists.' };
  try {
    try {
      return await deps.transfers.save(transfer, settle(transfer, wallet === null ? gone : { ok: true }, deps.clock.now()), deps.clock.now());
    } catch (error) {
      // Deleted between the read and the settlement: the hold returns to the source.
      if (!(error instanceof WalletGoneError)) throw error;
      return await deps.transfers.save(transfer, settle(transfer, gone, deps.clock.now()), deps.clock.now());
    }
  } catch (error) {
    // Settled meanwhile by another delivery of the same message.
    if (error instanceof ConflictError) return deps.transfers.get(ref.tenantId, ref.transferId);
    throw error;
  }
}
