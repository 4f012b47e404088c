import * as z from 'zod';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import type { ErrorOverrides } from '../../shared/http/route.js';
import { created, ok, principalOf, routesOf } from '../../shared/http/route.js';
import { CreateCustodyAccountBody, createAccount, ListCustodyAccountsQuery, listAccounts } from '../../shared/usecases/custody/accounts.js';
import { depositAddress, listAddresses } from '../../shared/usecases/custody/addresses.js';
import { accountBalances, accountDetail } from '../../shared/usecases/custody/balances.js';
import { CustodySyncRecord, syncAccount } from '../../shared/usecases/custody/sync.js';
import type { CustodyPorts, CustodyWithdrawalPorts } from '../../shared/usecases/custody/ports.js';
import { CustodyWithdrawBody, custodyWithdraw, custodyWithdrawalRecord, CustodyWithdrawalRecord } from '../../shared/usecases/custody/withdraw.js';
import type { WithdrawalState } from '../../shared/domain/withdrawals.js';
import {
  CustodyAccountDetail,
  CustodyAccountRecord,
  CustodyAddressRecord,
  CustodyBalances,
  CustodyTransferRecord,
} from '../../shared/usecases/custody/present.js';
import { CustodyTransferBody, custodyTransfer } from '../../shared/usecases/custody/transfer.js';

const tags = ['Custody'];
const route = routesOf<CustodyPorts & CustodyWithdrawalPorts>();
/** The custody group names a missing scope `insufficient_permissions` (section 4.8). */
const custody: ErrorOverrides = { permission_denied: { code: 'insufficient_permissions' } };
const Account = z.object({ accountId: z.string().max(100) });
const AccountChain = Account.extend({ blockchain: z.string().max(20) });
const notFound = { description: "account_not_found: unknown, or another tenant's" };

export const custodyRoutes = [
  route({
    method: 'POST',
    path: '/custody/accounts',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    errorOverrides: custody,
    body: CreateCustodyAccountBody,
    doc: {
      summary: 'Create a custody account',
      description:
        'name is required; account_type standard (default), hot or cold; metadata string values (at most 20 keys). Active and usable for deposit addresses at once.',
      tags,
      responses: { 201: { description: 'The account (spec 2.10)', schema: CustodyAccountRecord }, 400: { description: 'invalid_request' } },
    },
    handle: async (req, deps) => created(await createAccount(principalOf(req).tenant.id, req.body, deps)),
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
      responses: { 200: { description: 'Accounts', schema: z.array(CustodyAccountRecord) } },
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
      responses: { 200: { description: 'Addresses', schema: z.array(CustodyAddressRecord) }, 404: notFound },
    },
    handle: async (req, deps) => ok(await listAddresses(principalOf(req).tenant.id, req.params.accountId, deps)),
  }),
  route({
    method: 'POST',
    path: '/custody/accounts/{accountId}/sync',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    errorOverrides: custody,
    params: Account,
    doc: {
      summary: "Re-read the account's addresses on chain now",
      description:
        'Reads every address of the account on its chain (ETH and BSC: the USDT Transfer logs to it over the last CUSTODY_SYNC_LOOKBACK_BLOCKS blocks; TRX: its TRC-20 transfers over as long; SOL: its token account history), records any deposit not seen yet and credits the confirmed ones (SOL: finalized), never twice. Deposits still short of confirmations are credited later by the scanners.',
      tags,
      responses: {
        200: { description: 'What the sync found', schema: CustodySyncRecord },
        404: notFound,
        500: { description: 'custody_provider_error: a chain could not be read (nothing recorded)' },
      },
    },
    handle: async (req, deps) => ok(await syncAccount(principalOf(req).tenant.id, req.params.accountId, deps)),
  }),
  route({
    method: 'POST',
    path: '/custody/transfer',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    errorOverrides: custody,
    body: CustodyTransferBody,
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
    handle: async (req, deps) => ok(await custodyTransfer(principalOf(req).tenant.id, req.body, deps)),
  }),
  route({
    method: 'POST',
    path: '/custody/withdraw',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    errorOverrides: custody,
    body: CustodyWithdrawBody,
    idempotent: true,
    doc: {
      summary: 'Withdraw USDT from a custody account to an external address',
      description:
        "amount leaves the account (held in locked at once); the network and platform fees are deducted from it and the destination receives net_amount. The tenant's review policy (threshold, allowlist; set by the operator) may hold it pending with review.status awaiting_review until the operator approves or rejects it; otherwise it is sent like any withdrawal and shows in GET /withdrawal/{id}/. Honours Idempotency-Key.",
      tags,
      responses: {
        200: { description: 'The withdrawal (spec 2.10)', schema: CustodyWithdrawalRecord },
        400: {
          description:
            'invalid_request, insufficient_funds (details.available), invalid_address, minimum_amount_not_met (details.minimum), unsupported_blockchain',
        },
        404: notFound,
      },
    },
    handle: async (req, deps) => {
      const principal = principalOf(req);
      const present = (w: WithdrawalState) => ok(custodyWithdrawalRecord(w, req.body.blockchain.toUpperCase()));
      return present(
        await custodyWithdraw(
          {
            tenantId: principal.tenant.id,
            feePercent: principal.tenant.settings.transaction_fee,
            body: req.body,
            idempotency: req.idempotency?.with(present) ?? null,
          },
          deps,
        ),
      );
    },
  }),
];
