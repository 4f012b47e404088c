import * as z from 'zod';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import type { ErrorOverrides } from '../../shared/http/route.js';
import type { WithdrawalState } from '../../shared/domain/withdrawals.js';
import { created, ok, principalOf, routesOf } from '../../shared/http/route.js';
import type { WithdrawalsDeps } from '../../shared/usecases/withdrawals/ports.js';
import { CreateWithdrawalBody, createWithdrawal } from '../../shared/usecases/withdrawals/create-withdrawal.js';
import { WithdrawalListItem, WithdrawalRecord, withdrawalRecord } from '../../shared/usecases/withdrawals/present.js';
import {
  cancelWithdrawal,
  describeWithdrawal,
  ListWithdrawalsQuery,
  listWithdrawals,
  WithdrawalStatusBody,
} from '../../shared/usecases/withdrawals/read-withdrawals.js';
import {
  availableCurrencies,
  EstimateWithdrawalBody,
  estimateWithdrawal,
  FeeEstimateBody,
  feeEstimate,
  MinWithdrawalBody,
  minWithdrawal,
  withdrawalLimits,
} from '../../shared/usecases/withdrawals/estimate.js';
import { ValidateAddressBody, validateAddress } from '../../shared/usecases/withdrawals/validate-address.js';
import { lazySchema } from '../../shared/domain/lazy-schema.js';

const tags = ['Withdrawals'];
const route = routesOf<WithdrawalsDeps>();
/** A withdrawal named in the path: its id (anything else names no withdrawal: 404). */
const WithdrawalPath = lazySchema(() => z.object({ withdrawal_id: z.string().uuid('Not a withdrawal id.') }));
/** Spec 4.4: the list and the minimum check answer 401 `unauthorized` and 403 `forbidden`. */
const AUTH_ALIASES: ErrorOverrides = { authentication_failed: { code: 'unauthorized' }, permission_denied: { code: 'forbidden' } };

const AddressValidation = lazySchema(() =>
  z
    .object({
      is_valid: z.boolean(),
      address: z.string(),
      type: z.string().nullable(),
      blockchain: z.string().nullable(),
      token: z.string().nullable(),
      currency: z.string().nullable(),
      error_message: z.string().nullable(),
      warning: z.string().nullable(),
    })
    .meta({ id: 'AddressValidation' }),
);
const Estimate = lazySchema(() =>
  z
    .object({
      withdrawal_id: z.null(),
      status: z.literal('estimate'),
      amount: z.string(),
      requested_amount: z.string(),
      fee: z.string(),
      platform_fee: z.string(),
      network_fee: z.string(),
      total_deducted: z.string(),
      blockchain: z.string(),
      token: z.string(),
      currency: z.string(),
    })
    .meta({ id: 'WithdrawalEstimate' }),
);

export const withdrawalReadRoutes = [
  route({
    method: 'POST',
    path: '/withdrawal/validate-address/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: ValidateAddressBody,
    doc: {
      summary: 'Validate a withdrawal address',
      description:
        'One of currency, blockchain, type is required. EVM mixed case must pass EIP-55; the zero address is valid with a warning. XRP and XLM need a memo.',
      tags,
      responses: { 200: { description: 'Validation result', schema: AddressValidation }, 400: { description: 'invalid_request' } },
    },
    handle: async (req, deps) => ok(validateAddress(req.body, deps.served)),
  }),
  route({
    method: 'POST',
    path: '/withdrawal/estimate/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: EstimateWithdrawalBody,
    errorOverrides: { invalid_currency: { status: 400 } },
    doc: {
      summary: 'Estimate a withdrawal without creating it',
      description: 'final_amount=false (default): amount includes the fees; true: amount is what the recipient receives. Amounts are 8-place strings.',
      tags,
      responses: {
        200: { description: 'Estimate (spec 2.3)', schema: Estimate },
        400: { description: 'invalid_currency (details.currency), invalid_request (details.minimum/currency or address/blockchain)' },
      },
    },
    handle: async (req, deps) => ok(await estimateWithdrawal(req.body, principalOf(req).tenant, deps)),
  }),
  route({
    method: 'POST',
    path: '/withdrawal/fee-estimate/',
    auth: 'bearer',
    scopes: READ,
    body: FeeEstimateBody,
    errorOverrides: { invalid_currency: { status: 400 } },
    doc: { summary: 'Fees of a withdrawal whose recipient receives amount', tags, responses: { 200: { description: 'Fees (8-place strings)' } } },
    handle: async (req, deps) => ok(await feeEstimate(req.body, principalOf(req).tenant, deps)),
  }),
  route({
    method: 'POST',
    path: '/withdrawal/min-amount/',
    auth: 'bearer-or-api-key',
    scopes: READ,
    body: MinWithdrawalBody,
    // A minimum that cannot be computed (catalogue or configuration unreadable) is the spec's 500 service_unavailable.
    errorOverrides: { ...AUTH_ALIASES, invalid_currency: { status: 400 }, internal_error: { code: 'service_unavailable' } },
    doc: {
      summary: 'Minimum withdrawal amount',
      description:
        'Variant A {currency}; variant B {blockchain, token}: blockchain is a network code or alias (TRON, MATIC, BEP20, ...), token defaults to USDT where the network has it, else its native coin. Every pair naming a currency this deployment sends answers its minimum. min_amount is a JSON number.',
      tags,
      responses: {
        200: { description: '{min_amount, blockchain, token} (and currency in variant A)' },
        400: { description: 'invalid_request, unsupported_blockchain, unsupported_token' },
        500: { description: 'service_unavailable: the minimum cannot be computed' },
      },
    },
    handle: async (req, deps) => ok(minWithdrawal(req.body, deps)),
  }),
  route({
    method: 'GET',
    path: '/withdrawal/limits/',
    auth: 'bearer',
    scopes: READ,
    doc: { summary: 'Withdrawal limits and fees of every currency', tags, responses: { 200: { description: 'Limits' } } },
    handle: async (req, deps) => ok(withdrawalLimits(principalOf(req).tenant, deps)),
  }),
  route({
    method: 'GET',
    path: '/withdrawal/available-currencies/',
    auth: 'bearer',
    scopes: READ,
    doc: { summary: 'Withdrawable currencies with a positive balance', tags, responses: { 200: { description: '{currencies[]}' } } },
    handle: async (req, deps) => ok(await availableCurrencies(principalOf(req).tenant.id, deps)),
  }),
];
const presentCreated = (w: WithdrawalState) => created(withdrawalRecord(w));
const presentCancelled = (w: WithdrawalState) => ok(withdrawalRecord(w));

export const withdrawalRoutes = [
  ...withdrawalReadRoutes,
  route({
    method: 'POST',
    path: '/withdrawal/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: CreateWithdrawalBody,
    idempotent: true,
    errorOverrides: { invalid_currency: { status: 400 } },
    doc: {
      summary: 'Create a withdrawal',
      description:
        'Crypto form (amount, currency, address) or fiat form (price_amount, price_currency, blockchain, token, address). total_deducted = amount + network fee + platform fee, held from the balance at once.',
      tags,
      responses: {
        201: { description: 'The withdrawal (spec 2.2)', schema: WithdrawalRecord },
        400: {
          description:
            'invalid_request, invalid_address (details.address, expected_format), insufficient_balance (details.available, requested, total_with_fees, currency)',
        },
        422: { description: 'below_minimum (details.minimum, requested, currency)' },
      },
    },
    handle: async (req, deps) =>
      presentCreated(
        await createWithdrawal(
          { body: req.body, tenant: principalOf(req).tenant, now: req.now, idempotency: req.idempotency?.with(presentCreated) ?? null },
          deps,
        ),
      ),
  }),
  route({
    method: 'GET',
    path: '/withdrawal/',
    auth: 'bearer-or-api-key',
    scopes: READ,
    query: ListWithdrawalsQuery,
    errorOverrides: AUTH_ALIASES,
    doc: {
      summary: 'List withdrawals',
      tags,
      responses: {
        200: {
          description: '{withdrawals[], total}',
          schema: lazySchema(() => z.object({ withdrawals: z.array(WithdrawalListItem()), total: z.number().int() })),
        },
      },
    },
    handle: async (req, deps) => ok(await listWithdrawals(principalOf(req).tenant.id, req.query, deps)),
  }),
  route({
    method: 'POST',
    path: '/withdrawal/status/',
    auth: 'bearer',
    scopes: READ,
    body: WithdrawalStatusBody,
    doc: { summary: 'Status of a withdrawal', tags, responses: { 200: { description: 'The withdrawal', schema: WithdrawalRecord } } },
    handle: async (req, deps) => ok(await describeWithdrawal(principalOf(req).tenant.id, req.body.withdrawal_id, deps)),
  }),
  route({
    method: 'GET',
    path: '/withdrawal/{withdrawal_id}/',
    auth: 'bearer',
    scopes: READ,
    params: WithdrawalPath,
    doc: {
      summary: 'Retrieve a withdrawal',
      tags,
      responses: { 200: { description: 'The withdrawal', schema: WithdrawalRecord }, 404: { description: "Unknown, or another tenant's" } },
    },
    handle: async (req, deps) => ok(await describeWithdrawal(principalOf(req).tenant.id, req.params.withdrawal_id, deps)),
  }),
  route({
    method: 'POST',
    path: '/withdrawal/{withdrawal_id}/cancel/',
    auth: 'bearer',
    scopes: READ_WRITE,
    params: WithdrawalPath,
    idempotent: true,
    doc: {
      summary: 'Cancel a pending withdrawal',
      description: 'Releases the held funds. Otherwise 409 invalid_state.',
      tags,
      responses: { 200: { description: 'The cancelled withdrawal', schema: WithdrawalRecord }, 409: { description: 'invalid_state' } },
    },
    handle: async (req, deps) =>
      presentCancelled(
        await cancelWithdrawal(principalOf(req).tenant.id, req.params.withdrawal_id, req.now, deps, req.idempotency?.with(presentCancelled) ?? null),
      ),
  }),
];
