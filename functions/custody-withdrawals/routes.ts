import type { ErrorOverrides } from '../../shared/http/route.js';
import { ok, principalOf, routesOf } from '../../shared/http/route.js';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import type { WithdrawalState } from '../../shared/domain/withdrawals.js';
import type { CustodyWithdrawalPorts } from '../../shared/usecases/custody/ports.js';
import { CustodyWithdrawalParams, cancelCustodyWithdrawal, requireCustodyWithdrawal } from '../../shared/usecases/custody/read-withdrawals.js';
import { CustodyWithdrawBody, custodyWithdraw, custodyWithdrawalRecord, CustodyWithdrawalRecord } from '../../shared/usecases/custody/withdraw.js';

/**
 * The custody-withdrawals Lambda's one route: a withdrawal from a custody account, with the tenant's review, apart
 * from the custody Lambda so that withdrawal pricing and address checks are bundled only here. Part of the custody
 * group (functions/custody/routes.ts has the rest).
 */
const tags = ['Custody'];
const route = routesOf<CustodyWithdrawalPorts>();
/** As in the rest of the custody group: a missing scope is `insufficient_permissions` (section 4.8). */
const custody: ErrorOverrides = { permission_denied: { code: 'insufficient_permissions' } };
const notFound = { description: "account_not_found: unknown, or another tenant's" };

const withdrawalNotFound = { description: "not_found: unknown, another tenant's, or not a custody withdrawal" };

/** Every route's answer: the withdrawal's custody record (and what an Idempotency-Key replays). */
const present = (w: WithdrawalState) => ok(custodyWithdrawalRecord(w));

export const custodyWithdrawalRoutes = [
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
        "amount leaves the account (held in locked at once); the network and platform fees are deducted from it and the destination receives net_amount. The tenant's withdrawal limits apply (USD, what the destination receives). The tenant's review policy (threshold, allowlist; set by the operator) may hold it pending with review.status awaiting_review until the operator approves or rejects it: above the threshold, or taking the account's rolling 24-hour total of withdrawals sent without review over it; otherwise it is sent on chain like any withdrawal. It is read at GET /custody/withdrawals/{withdrawalId} (not GET /withdrawal/{id}/: it is not a withdrawal of the main account). Honours Idempotency-Key.",
      tags,
      responses: {
        200: { description: 'The withdrawal (spec 2.10)', schema: CustodyWithdrawalRecord },
        400: {
          description:
            "invalid_request (details.amount: past the tenant's max_withdrawal_amount or daily_withdrawal_limit, in USD, counted with its other withdrawals), insufficient_funds (details.available), invalid_address, minimum_amount_not_met (details.minimum), unsupported_blockchain",
        },
        404: notFound,
      },
    },
    handle: async (req, deps) => {
      const principal = principalOf(req);
      return present(
        await custodyWithdraw(
          {
            tenantId: principal.tenant.id,
            feePercent: principal.tenant.settings.transaction_fee,
            limits: principal.tenant.settings.limits,
            body: req.body,
            idempotency: req.idempotency?.with(present) ?? null,
          },
          deps,
        ),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/custody/withdrawals/{withdrawalId}',
    auth: 'bearer-or-api-key',
    scopes: READ,
    errorOverrides: custody,
    params: CustodyWithdrawalParams,
    doc: {
      summary: 'Retrieve a custody withdrawal',
      description: 'The withdrawal as POST /custody/withdraw answered it, as it is now (status, review, transaction_hash).',
      tags,
      responses: { 200: { description: 'The withdrawal (spec 2.10)', schema: CustodyWithdrawalRecord }, 404: withdrawalNotFound },
    },
    handle: async (req, deps) => present(await requireCustodyWithdrawal(principalOf(req).tenant.id, req.params.withdrawalId, deps)),
  }),
  route({
    method: 'POST',
    path: '/custody/withdrawals/{withdrawalId}/cancel',
    auth: 'bearer-or-api-key',
    scopes: READ_WRITE,
    errorOverrides: custody,
    params: CustodyWithdrawalParams,
    idempotent: true,
    doc: {
      summary: 'Cancel a pending custody withdrawal',
      description: 'Returns the held amount to the account. Only a pending withdrawal (held for review or not); otherwise 409 invalid_state.',
      tags,
      responses: {
        200: { description: 'The cancelled withdrawal', schema: CustodyWithdrawalRecord },
        404: withdrawalNotFound,
        409: { description: 'invalid_state' },
      },
    },
    handle: async (req, deps) =>
      present(await cancelCustodyWithdrawal(principalOf(req).tenant.id, req.params.withdrawalId, deps, req.idempotency?.with(present) ?? null)),
  }),
];
