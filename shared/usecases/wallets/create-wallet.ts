import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { newWallet, walletCreatedEvent } from '../../domain/wallets.js';
import type { IdempotencyGuard } from '../ports.js';
import type { WalletsPorts } from './ports.js';
import type { WalletRecord } from './present.js';
import { walletRecord } from './present.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/** `POST /wallets/` (spec 4.5): {name (required), external_id (unique per tenant)}. Announces `wallet.created`. */
export const CreateWalletBody = lazySchema(() =>
  z
    .object({
      name: z.string().max(100),
      external_id: z.string().max(100).nullable().optional(),
    })
    .meta({ id: 'CreateWallet' }),
);
export type CreateWalletBody = LazyOutput<typeof CreateWalletBody>;

/** A new wallet, stored with its event and, when guarded, the Idempotency-Key record in ONE transaction. */
export async function createWallet(
  tenantId: string,
  body: CreateWalletBody,
  deps: Pick<WalletsPorts, 'wallets' | 'clock'>,
  idempotency: IdempotencyGuard<WalletRecord> | null = null,
): Promise<WalletRecord> {
  const now = deps.clock.now();
  const wallet = newWallet({ tenantId, walletId: randomUUID(), name: body.name, externalId: body.external_id ?? null }, now);
  const stored = await deps.wallets.create(
    wallet,
    (w) => [walletCreatedEvent(w)],
    now,
    idempotency ? (w) => [idempotency.completeItem(walletRecord(w, []))] : undefined,
  );
  return walletRecord(stored, []);
}
