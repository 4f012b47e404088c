import * as z from 'zod';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import type { WalletTransferState } from '../../shared/domain/wallets.js';
import { walletRef } from '../../shared/domain/wallets.js';
import { accepted, created, noContent, ok, principalOf, routesOf } from '../../shared/http/route.js';
import { CreateWalletBody, createWallet } from '../../shared/usecases/wallets/create-wallet.js';
import { acknowledge, createTransfer, TransferAcknowledgement, TransferBody } from '../../shared/usecases/wallets/create-transfer.js';
import { deleteWallet } from '../../shared/usecases/wallets/delete-wallet.js';
import { getWallet } from '../../shared/usecases/wallets/get-wallet.js';
import { ListWalletsQuery, listWallets } from '../../shared/usecases/wallets/list-wallets.js';
import type { WalletsPorts } from '../../shared/usecases/wallets/ports.js';
import { WalletRecord } from '../../shared/usecases/wallets/present.js';
import { TransferHistory, TransferHistoryBody, transferHistory } from '../../shared/usecases/wallets/transfer-history.js';
import { UpdateWalletBody, updateWallet } from '../../shared/usecases/wallets/update-wallet.js';
import { lookupWalletBalances, walletBalance, WalletBalances, WalletBalancesBody } from '../../shared/usecases/wallets/wallet-balances.js';
import { lazySchema } from '../../shared/domain/lazy-schema.js';

const tags = ['Wallets'];
const route = routesOf<WalletsPorts>();
/** A wallet named in the path by its integer id or its uuid (anything else names no wallet: 404). */
const reference = lazySchema(() => z.string().refine((v) => walletRef(v) !== null, 'Not a wallet id.'));
const ById = lazySchema(() => z.object({ id: reference() }));
const ByWalletId = lazySchema(() => z.object({ wallet_id: reference() }));
const notFound = { description: "not_found: unknown, deleted, or another tenant's" };

const transferRoute = (path: string, type: 'to_sub' | 'to_master', summary: string) => {
  const present = (t: WalletTransferState) => accepted(acknowledge(t));
  return route({
    method: 'POST',
    path,
    auth: 'bearer',
    scopes: READ_WRITE,
    body: TransferBody,
    idempotent: true,
    doc: {
      summary,
      description:
        'Holds the amount on the source at once (refused with 400 insufficient_balance when it cannot be covered) and settles it asynchronously; the callback_url receives wallet_transfer_status_update (accepted, completed or failed). Honours Idempotency-Key.',
      tags,
      responses: {
        202: { description: 'Accepted', schema: TransferAcknowledgement },
        400: { description: 'invalid_request, insufficient_balance (details.available, requested, currency)' },
        404: notFound,
      },
    },
    handle: async (req, deps) =>
      present(await createTransfer({ tenantId: principalOf(req).tenant.id, type, body: req.body, idempotency: req.idempotency?.with(present) ?? null }, deps)),
  });
};

export const walletRoutes = [
  route({
    method: 'GET',
    path: '/wallets/',
    auth: 'bearer',
    scopes: READ,
    query: ListWalletsQuery,
    doc: {
      summary: 'List wallets (sub-accounts)',
      description: 'By id, ascending; limit (default 50, at most 100) and offset. total counts every wallet of the tenant.',
      tags,
      responses: {
        200: { description: '{accounts[], total}', schema: lazySchema(() => z.object({ accounts: z.array(WalletRecord()), total: z.number().int() })) },
      },
    },
    handle: async (req, deps) => ok(await listWallets(principalOf(req).tenant.id, req.query, deps)),
  }),
  route({
    method: 'POST',
    path: '/wallets/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: CreateWalletBody,
    idempotent: true,
    doc: {
      summary: 'Create a wallet',
      description: 'name is required; external_id, when given, is unique per tenant (a second wallet with it is 400 invalid_request on external_id).',
      tags,
      responses: { 201: { description: 'The wallet (spec 2.6)', schema: WalletRecord }, 400: { description: 'invalid_request' } },
    },
    handle: async (req, deps) => created(await createWallet(principalOf(req).tenant.id, req.body, deps, req.idempotency?.with(created) ?? null)),
  }),
  route({
    method: 'POST',
    path: '/wallets/balances/',
    auth: 'bearer',
    scopes: READ,
    body: WalletBalancesBody,
    doc: {
      summary: "A wallet's balances by wallet_id or external_id",
      tags,
      responses: { 200: { description: "The wallet's balances", schema: WalletBalances }, 404: notFound },
    },
    handle: async (req, deps) => ok(await lookupWalletBalances(principalOf(req).tenant.id, req.body, deps)),
  }),
  transferRoute('/wallets/transfer-to-user/', 'to_sub', 'Transfer from the main account to a wallet'),
  transferRoute('/wallets/withdraw-to-master/', 'to_master', 'Transfer from a wallet to the main account'),
  route({
    method: 'POST',
    path: '/wallets/transfer-history/',
    auth: 'bearer',
    scopes: READ,
    body: TransferHistoryBody,
    doc: {
      summary: 'Wallet transfer history',
      description: 'Newest first; filters wallet_id, status (accepted, completed, failed), transfer_type (to_sub, to_master), currency; limit and offset.',
      tags,
      responses: { 200: { description: '{transfers[], total}', schema: TransferHistory } },
    },
    handle: async (req, deps) => ok(await transferHistory(principalOf(req).tenant.id, req.body, deps)),
  }),
  route({
    method: 'GET',
    path: '/wallets/{id}/',
    auth: 'bearer',
    scopes: READ,
    params: ById,
    doc: { summary: 'Retrieve a wallet', tags, responses: { 200: { description: 'The wallet with its balances', schema: WalletRecord }, 404: notFound } },
    handle: async (req, deps) => ok(await getWallet(principalOf(req).tenant.id, req.params.id, deps)),
  }),
  route({
    method: 'PATCH',
    path: '/wallets/{wallet_id}/',
    auth: 'bearer',
    scopes: READ_WRITE,
    params: ByWalletId,
    body: UpdateWalletBody,
    doc: {
      summary: "Update a wallet's settings",
      description: 'name, external_id (null clears it; unique per tenant).',
      tags,
      responses: { 200: { description: 'The wallet', schema: WalletRecord }, 404: notFound },
    },
    handle: async (req, deps) => ok(await updateWallet(principalOf(req).tenant.id, req.params.wallet_id, req.body, deps)),
  }),
  route({
    method: 'DELETE',
    path: '/wallets/{wallet_id}/',
    auth: 'bearer',
    scopes: READ_WRITE,
    params: ByWalletId,
    doc: {
      summary: 'Delete a wallet',
      description: 'Only at zero: any balance (available, pending or held) refuses it with 409 invalid_state (details.currencies).',
      tags,
      responses: { 204: { description: 'Deleted' }, 404: notFound, 409: { description: 'invalid_state: the wallet holds funds' } },
    },
    handle: async (req, deps) => {
      await deleteWallet(principalOf(req).tenant.id, req.params.wallet_id, deps);
      return noContent();
    },
  }),
  route({
    method: 'GET',
    path: '/wallets/{wallet_id}/balance/',
    auth: 'bearer',
    scopes: READ,
    params: ByWalletId,
    doc: { summary: "A wallet's current balances", tags, responses: { 200: { description: "The wallet's balances", schema: WalletBalances }, 404: notFound } },
    handle: async (req, deps) => ok(await walletBalance(principalOf(req).tenant.id, req.params.wallet_id, deps)),
  }),
];
