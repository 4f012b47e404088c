import * as z from 'zod';
import { toChecksumAddress } from '../../domain/addresses.js';
import type { ChainTx } from '../../domain/chain-tx.js';
import { CHAIN_TX_REQUESTED, claimedChainTx, openChainTx, requestedPayload, requestIdOf, sameRequest } from '../../domain/chain-tx.js';
import { ConflictError } from '../../domain/errors.js';
import { parseInput } from '../ledger/input.js';
import type { ChainTxDeps } from './ports.js';

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
  .transform((v) => toChecksumAddress(v.toLowerCase()));
const wei = z.union([z.bigint().nonnegative(), z.string().regex(/^\d{1,78}$/, 'must be a non-negative integer in base units')]).transform((v) => BigInt(v));

/**
 * Asks the engine for a chain transaction. Idempotent on (network, reference): asking again with the same
 * fields returns the existing request; with other fields it is a ConflictError (409 `invalid_state`).
 * The request and a `chain_tx.requested` outbox event (payload `{request_id, network, reference, purpose}`)
 * are written in one transaction; the event router sends it to the `transfers` queue, whose consumer runs
 * `processChainTx(request_id)`. The follower also picks up requests left queued.
 */
export const RequestChainTxInput = z.object({
  network: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'network name: letters, digits, _ and -'),
  /** The hot wallet: its KMS key id and the address of that key. */
  wallet: z.object({ keyId: z.string().min(1), address }),
  to: address,
  data: z
    .string()
    .regex(/^0x([0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex bytes')
    .default('0x'),
  value: wei.default(0n),
  /** Fixed gas limit; estimated with a 20 % margin when absent. */
  gasLimit: wei.optional(),
  /** e.g. `sweep`, `withdrawal`. */
  purpose: z.string().regex(/^[a-z_]{1,40}$/),
  /** The caller's natural id (sweep id, withdrawal id): the idempotency key within the network. */
  reference: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^#]+$/, 'must not contain #'),
  /** What the transaction carries, in call-data order, for its settlement (a batch payout's items). */
  items: z.array(z.string().min(1).max(200)).min(1).max(256).optional(),
  /** Tenant the outbox events are written for; `platform` for platform work. */
  tenantId: z.string().min(1).default('platform'),
});
export type RequestChainTxInput = z.input<typeof RequestChainTxInput>;

export async function requestChainTx(raw: RequestChainTxInput, deps: Pick<ChainTxDeps, 'store' | 'clock'>): Promise<ChainTx> {
  const input = parseInput(RequestChainTxInput, raw);
  const tx = openChainTx({ ...input, data: input.data.toLowerCase() }, deps.clock());
  const created = await deps.store.create(tx, { eventType: CHAIN_TX_REQUESTED, payload: requestedPayload(tx) });
  if (created) return created;
  const existing = await deps.store.get(tx.requestId);
  if (!existing) throw new Error(`Chain-tx request ${tx.requestId} exists but cannot be read`);
  if (!sameRequest(existing, tx))
    throw new ConflictError(`Chain transaction ${input.reference} was already requested with other fields`, { reference: input.reference });
  return existing;
}

/**
 * The request of (network, reference) as it stands, or, when it was never made, the reference claimed by a
 * cancelled request that is never sent: a batch maker that is late rather than dead then has its request refused
 * (other fields), so what a recovery decided holds. Returns whichever request was stored first.
 */
export async function claimedRequest(
  claim: {
    readonly network: string;
    readonly reference: string;
    readonly purpose: string;
    readonly wallet: () => Promise<ChainTx['wallet']>;
    readonly to: (wallet: ChainTx['wallet']) => string;
  },
  deps: Pick<ChainTxDeps, 'store' | 'clock'>,
): Promise<ChainTx> {
  const requestId = requestIdOf(claim.network, claim.reference);
  const existing = await deps.store.get(requestId);
  if (existing) return existing;
  const wallet = await claim.wallet();
  const claimed = claimedChainTx(
    { network: claim.network, reference: claim.reference, purpose: claim.purpose, tenantId: 'platform', wallet, to: claim.to(wallet), data: '0x', value: 0n },
    deps.clock(),
  );
  // Created here or, just now, by the late batch maker: whichever it is decides.
  const stored = (await deps.store.create(claimed)) ?? (await deps.store.get(requestId));
  if (!stored) throw new Error(`Chain-tx request ${requestId} cannot be read`);
  return stored;
}
