import * as z from 'zod';
import { NotFoundError, ValidationError } from '../../domain/errors.js';
import { accountOf } from '../../domain/wallets.js';
import { findWallet, WalletReference } from './find-wallet.js';
import type { WalletsPorts } from './ports.js';
import type { WalletState } from '../../domain/wallets.js';
import { WalletRecord, walletBalances } from './present.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/** `GET /wallets/{wallet_id}/balance/` and `POST /wallets/balances/`: one wallet's balances. */
export const WalletBalances = lazySchema(() =>
  WalletRecord().pick({ id: true, wallet_id: true, name: true, external_id: true, balances: true }).meta({ id: 'WalletBalances' }),
);

export const WalletBalancesBody = lazySchema(() =>
  z.object({ wallet_id: WalletReference().optional(), external_id: z.string().optional() }).meta({ id: 'WalletBalancesLookup' }),
);
export type WalletBalancesBody = z.output<ReturnType<typeof WalletBalancesBody>>;

export async function walletBalance(
  tenantId: string,
  reference: string,
  deps: Pick<WalletsPorts, 'wallets' | 'ledger'>,
): Promise<LazyOutput<typeof WalletBalances>> {
  return balancesOf(tenantId, await findWallet(tenantId, reference, deps), deps);
}

async function balancesOf(tenantId: string, wallet: WalletState, deps: Pick<WalletsPorts, 'ledger'>): Promise<LazyOutput<typeof WalletBalances>> {
  return {
    id: wallet.id,
    wallet_id: wallet.walletId,
    name: wallet.name,
    external_id: wallet.externalId,
    balances: walletBalances(await deps.ledger.balances(tenantId, accountOf(wallet))),
  };
}

/** By `wallet_id` (integer id or uuid) or `external_id`. */
export async function lookupWalletBalances(tenantId: string, body: WalletBalancesBody, deps: Pick<WalletsPorts, 'wallets' | 'ledger'>) {
  if (body.wallet_id !== undefined) return walletBalance(tenantId, String(body.wallet_id), deps);
  if (body.external_id === undefined) throw ValidationError.field('wallet_id', 'Give wallet_id or external_id.');
  const wallet = await deps.wallets.byExternalId(tenantId, body.external_id);
  if (wallet === null) throw new NotFoundError(`No wallet with external_id ${body.external_id}.`, { external_id: body.external_id });
  return balancesOf(tenantId, wallet, deps);
}
