import * as z from 'zod';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import type { ErrorOverrides } from '../../shared/http/route.js';
import { created, ok, principalOf, routesOf } from '../../shared/http/route.js';
import type { CustodyAccountsPorts } from '../../shared/runtime/custody-accounts.js';
import { CreateCustodyAccountBody, createAccount, ListCustodyAccountsQuery, listAccounts } from '../../shared/usecases/custody/accounts.js';
import { depositAddress, listAddresses } from '../../shared/usecases/custody/addresses.js';
import { accountBalances, accountDetail } from '../../shared/usecases/custody/balances.js';
import {
  CustodyAccountDetail,
  CustodyAccountRecord,
  CustodyAddressRecord,
  CustodyBalances,
  CustodyTransferRecord,
} from '../../shared/usecases/custody/present.js';
import { CustodyTransferBody, custodyTransfer } from '../../shared/usecases/custody/transfer.js';
import { lazySchema } from '../../shared/domain/lazy-schema.js';

/**
 * What the custody Lambda serves of the custody group: accounts with their balances and deposit addresses, and
 * transfers between them. The account's sync is custody-sync's, withdrawals custody-withdrawals' (infra/definition.ts).
 * Two lists, so that the OpenAPI document lists the whole group in the order it is documented (the sync between the
 * addresses and the transfers).
 */
const tags = ['Custody'];
const route = routesOf<CustodyAccountsPorts>();
/** The custody group names a missing scope `insufficient_permissions` (section 4.8). */
const custody: ErrorOverrides = { permission_denied: { code: 'insufficient_permissions' } };
const Account = lazySchema(() => z.object({ accountId: z.string().max(100) }));
const AccountChain = lazySchema(() => Account().extend({ blockchain: z.string().max(20) }));
const notFound = { description: "account_not_found: unknown, or another tenant's" };

export const custodyAccountRoutes = [
  route({
    method: 'POST',
    path: '/custody/accounts',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    errorOverrides: custody,
    body: CreateCustodyAccountBody,
    idempotent: true,
    doc: {
      summary: 'Create a custody account',
      description:
        'name is required; account_type standard (default), hot or cold; metadata string values (at most 20 keys). Active and usable for deposit addresses at once.',
      tags,
      responses: { 201: { description: 'The account (spec 2.10)', schema: CustodyAccountRecord }, 400: { description: 'invalid_request' } },
    },
    handle: async (req, deps) => created(await createAccount(principalOf(req).tenant.id, req.body, deps, req.idempotency?.with(created) ?? null)),
  }),
  route({
    method: 'GET',
    path: '/custody/accounts',
    auth: 'bearer-or-api-key',
    scopes: READ,
    errorOverrides: custody,
    query: ListCustodyAccountsQuery,
    doc: {
      summary: 'List custody accounts',
      description: 'Oldest first; skip (default 0), limit (default 10, at most 100), status (active, inactive). An array.',
      tags,
      responses: { 200: { description: 'Accounts', schema: lazySchema(() => z.array(CustodyAccountRecord())) } },
    },
    handle: async (req, deps) => ok(await listAccounts(principalOf(req).tenant.id, req.query, deps)),
  }),
  route({
    method: 'GET',
    path: '/custody/accounts/{accountId}',
    auth: 'bearer-or-api-key',
    scopes: READ,
    errorOverrides: custody,
    params: Account,
    doc: {
      summary: 'A custody account with its balances summary',
      tags,
      responses: { 200: { description: 'The account', schema: CustodyAccountDetail }, 404: notFound },
    },
    handle: async (req, deps) => ok(await accountDetail(principalOf(req).tenant.id, req.params.accountId, deps)),
  }),
  route({
    method: 'GET',
    path: '/custody/accounts/{accountId}/balances',
    auth: 'bearer-or-api-key',
    scopes: READ,
    errorOverrides: custody,
    params: Account,
    doc: {
      summary: "A custody account's balances",
      description:
        'One row per custody chain (ETH, BSC, TRX, SOL), zero rows included; balance = available + locked (held for pending withdrawals); USD at the current rates. Numbers.',
      tags,
      responses: { 200: { description: 'The balance view (spec 2.10)', schema: CustodyBalances }, 404: notFound },
    },
    handle: async (req, deps) => ok(await accountBalances(principalOf(req).tenant.id, req.params.accountId, deps)),
  }),
  route({
    method: 'POST',
    path: '/custody/accounts/{accountId}/addresses/{blockchain}',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    errorOverrides: custody,
    params: AccountChain,
    // The address is keyed by account and chain, so the key's record completes after it: a retry cannot make another.
    idempotent: true,
    doc: {
      summary: "Create (or return) the account's deposit address on a chain",
      description:
        'blockchain ETH, BSC, TRX or SOL. The first call creates it (is_new true); later and concurrent calls return the same address (is_new false).',
      tags,
      responses: {
        200: { description: 'The deposit address', schema: CustodyAddressRecord },
        400: { description: 'unsupported_blockchain' },
        404: notFound,
        500: { description: 'custody_provider_error' },
      },
    },
    handle: async (req, deps) => ok(await depositAddress(principalOf(req).tenant.id, req.params.accountId, req.params.blockchain, deps)),
  }),
  route({
    method: 'GET',
    path: '/custody/accounts/{accountId}/addresses',
    auth: 'bearer-or-api-key',
    scopes: READ,
    errorOverrides: custody,
    params: Account,
    doc: {
      summary: "The account's deposit addresses",
      tags,
      responses: { 200: { description: 'Addresses', schema: lazySchema(() => z.array(CustodyAddressRecord())) }, 404: notFound },
    },
    handle: async (req, deps) => ok(await listAddresses(principalOf(req).tenant.id, req.params.accountId, deps)),
  }),
];

export const custodyTransferRoutes = [
  route({
    method: 'POST',
    path: '/custody/transfer',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    errorOverrides: custody,
    body: CustodyTransferBody,
    idempotent: true,
    doc: {
      summary: 'Move USDT between two custody accounts',
      description: 'Same tenant, same chain, both accounts active; one ledger transaction, completed at once.',
      tags,
      responses: {
        200: { description: 'The transfer (spec 2.10)', schema: CustodyTransferRecord },
        400: { description: 'invalid_request, insufficient_funds (details.available), same_account, unsupported_blockchain' },
        404: notFound,
      },
    },
    handle: async (req, deps) => ok(await custodyTransfer(principalOf(req).tenant.id, req.body, deps, req.idempotency?.with(ok) ?? null)),
  }),
];
