import { publicOrigin } from '../../shared/http/origin.js';
import * as z from 'zod';
import type { RefundState } from '../../shared/domain/refunds.js';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import { created, ok, principalOf, routesOf } from '../../shared/http/route.js';
import type { RefundsDeps } from '../../shared/usecases/refunds/ports.js';
import { Refundable, RefundRecord, refundRecord } from '../../shared/usecases/refunds/present.js';
import {
  cancelRefund,
  CreateRefundBody,
  createRefund,
  describeRefundable,
  listRefunds,
  RefundPath,
  requireRefund,
} from '../../shared/usecases/refunds/refunds.js';
import { lazySchema } from '../../shared/domain/lazy-schema.js';

/** Refunds (DESIGN section 12, beside the interface's groups): a payment's refunds and the refunds themselves. */
const tags = ['Refunds'];
const route = routesOf<RefundsDeps>();
const PaymentPath = lazySchema(() => z.object({ transaction_id: z.string().uuid('Not a payment id.') }));

/** Claim links on the deployment's public base URL (shared/http/origin.ts). */
const originOf = (req: Parameters<typeof publicOrigin>[0], deps: RefundsDeps): string => publicOrigin(req, deps.settings.publicBaseUrl);

export const refundRoutes = [
  route({
    method: 'GET',
    path: '/payments/{transaction_id}/refundable/',
    auth: 'bearer',
    scopes: READ,
    params: PaymentPath,
    doc: {
      summary: 'What of a payment can be refunded',
      description:
        "The merchant's credit for the payment (a completed one's; for one left partially paid past its expiry, what its first refund credits) less its refunds; amounts are strings in the payment's currency.",
      tags,
      responses: { 200: { description: 'Refundable', schema: Refundable }, 404: { description: "Unknown, or another tenant's" } },
    },
    handle: async (req, deps) => ok(await describeRefundable(principalOf(req).tenant.id, req.params.transaction_id, req.now, deps)),
  }),
  route({
    method: 'POST',
    path: '/payments/{transaction_id}/refunds/',
    auth: 'bearer',
    scopes: READ_WRITE,
    params: PaymentPath,
    body: CreateRefundBody,
    idempotent: true,
    doc: {
      summary: 'Refund a payment',
      description: [
        "amount defaults to what is refundable: the excess of an overpaid payment, else all of the payment's credit.",
        'A payment left partially paid past its expiry is settled by its first refund: it fails, its confirmed deposits are credited less the fee and the refund held, in one transaction.',
        'With address: pending at once. Without: awaiting_address, with claim_url (a public page where the customer enters the address).',
        'The amount is held from the balance at once; the network fee is deducted from what is sent.',
      ].join(' '),
      tags,
      responses: {
        201: { description: 'The refund', schema: RefundRecord },
        400: { description: 'invalid_request (details.amount, refundable), invalid_address, insufficient_balance, unsupported_blockchain' },
        404: { description: "Unknown payment, or another tenant's" },
        409: { description: 'invalid_state: the payment is not credited (still open, or never paid), or is refunded in full' },
        422: { description: 'below_minimum (details.minimum, requested, network_fee, currency)' },
      },
    },
    handle: async (req, deps) => {
      const present = (r: RefundState) => created(refundRecord(r, originOf(req, deps)));
      const tenantId = principalOf(req).tenant.id;
      return present(
        await createRefund(
          {
            tenantId,
            paymentId: req.params.transaction_id,
            body: req.body,
            now: req.now,
            origin: originOf(req, deps),
            idempotency: req.idempotency?.with(present) ?? null,
          },
          deps,
        ),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/payments/{transaction_id}/refunds/',
    auth: 'bearer',
    scopes: READ,
    params: PaymentPath,
    doc: {
      summary: "A payment's refunds",
      tags,
      responses: {
        200: { description: '{results[]}, oldest first', schema: lazySchema(() => z.object({ results: z.array(RefundRecord()) })) },
        404: { description: 'Unknown payment' },
      },
    },
    handle: async (req, deps) => {
      const refunds = await listRefunds(principalOf(req).tenant.id, req.params.transaction_id, deps);
      return ok({ results: refunds.map((r) => refundRecord(r, originOf(req, deps))) });
    },
  }),
  route({
    method: 'GET',
    path: '/refunds/{refund_id}/',
    auth: 'bearer',
    scopes: READ,
    params: RefundPath,
    doc: {
      summary: 'Retrieve a refund',
      tags,
      responses: { 200: { description: 'The refund', schema: RefundRecord }, 404: { description: "Unknown, or another tenant's" } },
    },
    handle: async (req, deps) => ok(refundRecord(await requireRefund(principalOf(req).tenant.id, req.params.refund_id, deps), originOf(req, deps))),
  }),
  route({
    method: 'POST',
    path: '/refunds/{refund_id}/cancel/',
    auth: 'bearer',
    scopes: READ_WRITE,
    params: RefundPath,
    idempotent: true,
    doc: {
      summary: 'Cancel a refund',
      description: 'Until it is processing: the hold is released and the amount is refundable again. Otherwise 409 invalid_state.',
      tags,
      responses: { 200: { description: 'The cancelled refund', schema: RefundRecord }, 409: { description: 'invalid_state' } },
    },
    handle: async (req, deps) => {
      const present = (r: RefundState) => ok(refundRecord(r, originOf(req, deps)));
      return present(await cancelRefund(principalOf(req).tenant.id, req.params.refund_id, req.now, deps, req.idempotency?.with(present) ?? null));
    },
  }),
];
