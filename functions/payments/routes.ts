import { publicOrigin } from '../../shared/http/origin.js';
import * as z from 'zod';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import type { PaymentState } from '../../shared/domain/payments.js';
import { created, ok, principalOf, routesOf } from '../../shared/http/route.js';
import { cancelPayment, UpdatePaymentBody, updatePayment } from '../../shared/usecases/payments/change-payment.js';
import { CreatePaymentBody, createPayment } from '../../shared/usecases/payments/create-payment.js';
import { EstimateBody, estimatePayment, MinAmountQuery, minAmount } from '../../shared/usecases/payments/estimate.js';
import type { PaymentsDeps } from '../../shared/usecases/payments/ports.js';
import { withRatesRead } from '../../shared/usecases/rates/current-rates.js';
import type { PaymentLinks } from '../../shared/usecases/payments/present.js';
import { CreateRecord, createRecord, ListItem, PaymentRecord, paymentLinks, paymentRecord } from '../../shared/usecases/payments/present.js';
import { ListPaymentsQuery, listPayments, requirePayment, StatusBody } from '../../shared/usecases/payments/read-payments.js';
import { lazySchema } from '../../shared/domain/lazy-schema.js';

const PageA = lazySchema(() =>
  z.object({ count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable(), results: z.array(ListItem()) }),
);
const PageB = lazySchema(() => z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), results: z.array(ListItem()) }));
const Estimate = lazySchema(() =>
  z.object({
    price_amount: z.string(),
    price_currency: z.string(),
    currency: z.string(),
    blockchain: z.string(),
    token: z.string(),
    amount_crypto: z.string(),
    fee_amount: z.string(),
    fee_percentage: z.string(),
    merchant_receives: z.string(),
    amount_usd: z.string(),
    rate: z.string(),
    is_fee_paid_by_user: z.boolean(),
    min_amount: z.string(),
    max_amount: z.string(),
    rate_timestamp: z.string(),
  }),
);
const MinAmount = lazySchema(() =>
  z.object({
    currency: z.string(),
    min_amount: z.number(),
    max_amount: z.number(),
    blockchain: z.string(),
    token: z.string(),
    min_amount_usd: z.number().nullable().describe('The minimum in USD, rounded up to the cent: a payment priced at it is never below the minimum'),
    min_amount_price: z.number().nullable().describe('The same in `price_currency`'),
    price_currency: z.string().describe('The query parameter, default USD'),
  }),
);
const tags = ['Payments'];
const route = routesOf<PaymentsDeps>();
/** Links on the deployment's public base URL (shared/http/origin.ts). */
const linksOf = (req: Parameters<typeof publicOrigin>[0], deps: PaymentsDeps): PaymentLinks => paymentLinks(publicOrigin(req, deps.settings.publicBaseUrl));
/** The payment record with its refunded total (read only for a credited payment: no other has refunds). */
const recordOf = async (p: PaymentState, req: Parameters<typeof linksOf>[0], deps: PaymentsDeps) =>
  paymentRecord(p, linksOf(req, deps), p.merchantReceived !== null && deps.refunded ? await deps.refunded(p.tenantId, p.id) : '0');
/** A payment named in the path: its transaction id (anything else names no payment: 404). */
const PaymentPath = lazySchema(() => z.object({ transaction_id: z.string().uuid('Not a payment id.') }));

export const paymentRoutes = [
  route({
    method: 'POST',
    path: '/payments/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: CreatePaymentBody,
    rateBucket: 'payment_creations',
    countsInOwnWrite: true,
    prefetch: ['rates'],
    idempotent: true,
    doc: {
      summary: 'Create a payment',
      description:
        'Body forms: amount + currency; amount + blockchain + token; price_amount + price_currency + pay_currency. price_currency USD, EUR or GBP. amount_crypto is exact at the currency display precision, rounded up; with is_fee_paid_by_user it includes the platform fee. 422 invalid_currency carries details.supported_currencies.',
      tags,
      responses: {
        201: { description: 'The payment (spec 2.1)', schema: CreateRecord },
        400: { description: 'invalid_request, details per field' },
        422: { description: 'invalid_currency' },
        429: { description: 'More than the hourly payment creations' },
      },
    },
    handle: async (req, deps) => {
      const links = linksOf(req, deps);
      const presentCreated = (p: PaymentState) => created(createRecord(p, links));
      const payment = await createPayment(
        { body: req.body, tenant: principalOf(req).tenant, now: req.now, idempotency: req.idempotency?.with(presentCreated) ?? null, usage: req.usage },
        { ...deps, rates: withRatesRead(deps.rates, req.prefetched.rates) },
      );
      return presentCreated(payment);
    },
  }),
  route({
    method: 'GET',
    path: '/payments/',
    auth: 'bearer',
    scopes: READ,
    query: ListPaymentsQuery,
    doc: {
      summary: 'List payments',
      description:
        'Variant B (limit/offset; filters status, currency, blockchain, token) when limit or offset is given; else variant A (page/page_size, filters, ordering).',
      tags,
      responses: {
        200: {
          description: 'Variant A {count,next,previous,results} or variant B {total,limit,offset,results}',
          schema: lazySchema(() => z.union([PageA(), PageB()])),
        },
      },
    },
    handle: async (req, deps) => ok(await listPayments(principalOf(req).tenant.id, req.query, req.path, linksOf(req, deps), deps)),
  }),
  route({
    method: 'POST',
    path: '/payments/status/',
    auth: 'bearer',
    scopes: READ,
    body: StatusBody,
    doc: { summary: 'Status of a payment', tags, responses: { 200: { description: 'The payment', schema: PaymentRecord } } },
    handle: async (req, deps) => ok(await recordOf(await requirePayment(principalOf(req).tenant.id, req.body.transaction_id, deps), req, deps)),
  }),
  route({
    method: 'POST',
    path: '/payments/estimate/',
    auth: 'bearer',
    scopes: READ,
    body: EstimateBody,
    doc: { summary: 'Estimate a payment without creating it', tags, responses: { 200: { description: 'Estimate', schema: Estimate } } },
    handle: async (req, deps) => ok(await estimatePayment(req.body, principalOf(req).tenant, req.now, deps)),
  }),
  route({
    method: 'GET',
    path: '/payments/min-amount/',
    auth: 'bearer',
    scopes: READ,
    query: MinAmountQuery,
    doc: { summary: 'Payment bounds of a currency', tags, responses: { 200: { description: 'Bounds (JSON numbers)', schema: MinAmount } } },
    handle: async (req, deps) => ok(await minAmount(req.query, req.now, deps)),
  }),
  route({
    method: 'GET',
    path: '/payments/{transaction_id}/',
    auth: 'bearer',
    scopes: READ,
    params: PaymentPath,
    doc: {
      summary: 'Retrieve a payment',
      description: 'The create record plus confirmations, payment_history, merchant_received_usd.',
      tags,
      responses: { 200: { description: 'The payment', schema: PaymentRecord }, 404: { description: "Unknown, or another tenant's" } },
    },
    handle: async (req, deps) => ok(await recordOf(await requirePayment(principalOf(req).tenant.id, req.params.transaction_id, deps), req, deps)),
  }),
  route({
    method: 'PATCH',
    path: '/payments/{transaction_id}/',
    auth: 'bearer',
    scopes: READ_WRITE,
    params: PaymentPath,
    body: UpdatePaymentBody,
    doc: {
      summary: 'Update order_id, order_description (or description) or callback_url',
      tags,
      responses: { 200: { description: 'The payment', schema: PaymentRecord }, 409: { description: 'invalid_state: settled payments cannot change' } },
    },
    handle: async (req, deps) =>
      ok(await recordOf(await updatePayment(principalOf(req).tenant.id, req.params.transaction_id, req.body, req.now, deps), req, deps)),
  }),
  route({
    method: 'POST',
    path: '/payments/{transaction_id}/cancel/',
    auth: 'bearer',
    scopes: READ_WRITE,
    params: PaymentPath,
    doc: {
      summary: 'Cancel a waiting payment with no deposit',
      description: 'Status becomes cancelled. Otherwise 409 invalid_state.',
      tags,
      responses: { 200: { description: 'The cancelled payment', schema: PaymentRecord }, 409: { description: 'invalid_state' } },
    },
    handle: async (req, deps) => ok(await recordOf(await cancelPayment(principalOf(req).tenant.id, req.params.transaction_id, req.now, deps), req, deps)),
  }),
];
