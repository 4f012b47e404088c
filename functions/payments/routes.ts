import { z } from 'zod';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import type { PaymentState } from '../../shared/domain/payments.js';
import { created, ok, principalOf, route } from '../../shared/http/route.js';
import { cancelPayment, UpdatePaymentBody, updatePayment } from '../../shared/usecases/payments/change-payment.js';
import { CreatePaymentBody, createPayment } from '../../shared/usecases/payments/create-payment.js';
import { defaultPaymentsDeps } from '../../shared/usecases/payments/deps.js';
import { EstimateBody, estimatePayment, MinAmountQuery, minAmount } from '../../shared/usecases/payments/estimate.js';
import { createRecord, paymentRecord } from '../../shared/usecases/payments/present.js';
import { ListPaymentsQuery, listPayments, requirePayment, StatusBody } from '../../shared/usecases/payments/read-payments.js';

const HistoryItem = z.object({ deposit_id: z.string(), amount: z.string(), transaction_hash: z.string(), confirmations: z.number().int(), timestamp: z.string() });
const CreateRecord = z
  .object({
    transaction_id: z.string().uuid(),
    blockchain: z.string(),
    currency: z.string(),
    status: z.string(),
    amount_usd: z.string(),
    amount_crypto: z.string(),
    address: z.string(),
    token: z.string(),
    transaction_hash: z.string().nullable(),
    order_id: z.string().nullable(),
    order_description: z.string().nullable(),
    callback_url: z.string().nullable(),
    expiry_time: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
    is_fixed_rate: z.boolean(),
    is_fee_paid_by_user: z.boolean(),
    price_amount: z.string(),
    price_currency: z.string(),
    fee_amount: z.string(),
    custom_id: z.string().nullable(),
    wallet_id: z.string().nullable(),
    customer_email: z.string().nullable(),
  })
  .meta({ id: 'PaymentCreated' });
const PaymentRecord = CreateRecord.extend({
  payment_type: z.string().nullable(),
  confirmations: z.number().int(),
  payment_history: z.array(HistoryItem),
  merchant_received_usd: z.string().nullable(),
  merchant_received: z.string().nullable(),
  flags: z.array(z.enum(['underpaid', 'overpaid', 'paid_late', 'wrong_token'])),
}).meta({ id: 'Payment' });
const ListItem = z
  .object({
    transaction_id: z.string(),
    status: z.string(),
    payment_type: z.string().nullable(),
    provider: z.string(),
    price_amount: z.string(),
    price_currency: z.string(),
    pay_amount: z.string(),
    pay_currency: z.string(),
    blockchain_address: z.string(),
    blockchain_network: z.string(),
    token: z.string(),
    transaction_hash: z.string().nullable(),
    confirmations: z.number().int(),
    order_id: z.string().nullable(),
    order_description: z.string().nullable(),
    merchant_received_usd: z.string().nullable(),
    payment_history: z.array(HistoryItem),
    expiry_time: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'PaymentListItem' });
const PageA = z.object({ count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable(), results: z.array(ListItem) });
const PageB = z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), results: z.array(ListItem) });
const Estimate = z.object({
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
});
const MinAmount = z.object({ currency: z.string(), min_amount: z.number(), max_amount: z.number(), blockchain: z.string(), token: z.string() });
const tags = ['Payments'];
const presentCreated = (p: PaymentState) => created(createRecord(p));

export const paymentRoutes = [
  route({
    method: 'POST',
    path: '/payments/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: CreatePaymentBody,
    rateBucket: 'payment_creations',
    idempotent: true,
    doc: {
      summary: 'Create a payment',
      description:
        'Body forms: amount + currency; amount + blockchain + token; price_amount + price_currency + pay_currency. price_currency USD, EUR or GBP. amount_crypto is exact at the currency display precision, rounded up; with is_fee_paid_by_user it includes the platform fee. 422 invalid_currency carries details.supported_currencies.',
      tags,
      responses: { 201: { description: 'The payment (spec 2.1)', schema: CreateRecord }, 400: { description: 'invalid_request, details per field' }, 422: { description: 'invalid_currency' }, 429: { description: 'More than the hourly payment creations' } },
    },
    handle: async (req) => {
      const payment = await createPayment(
        { body: req.body, tenant: principalOf(req).tenant, now: req.now, idempotency: req.idempotency?.with(presentCreated) ?? null },
        defaultPaymentsDeps(),
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
      description: 'Variant B (limit/offset; filters status, currency, blockchain, token) when limit or offset is given; else variant A (page/page_size, filters, ordering).',
      tags,
      responses: { 200: { description: 'Variant A {count,next,previous,results} or variant B {total,limit,offset,results}', schema: z.union([PageA, PageB]) } },
    },
    handle: async (req) => ok(await listPayments(principalOf(req).tenant.id, req.query, req.path)),
  }),
  route({
    method: 'POST',
    path: '/payments/status/',
    auth: 'bearer',
    scopes: READ,
    body: StatusBody,
    doc: { summary: 'Status of a payment', tags, responses: { 200: { description: 'The payment', schema: PaymentRecord } } },
    handle: async (req) => ok(paymentRecord(await requirePayment(principalOf(req).tenant.id, req.body.transaction_id))),
  }),
  route({
    method: 'POST',
    path: '/payments/estimate/',
    auth: 'bearer',
    scopes: READ,
    body: EstimateBody,
    doc: { summary: 'Estimate a payment without creating it', tags, responses: { 200: { description: 'Estimate', schema: Estimate } } },
    handle: async (req) => ok(await estimatePayment(req.body, principalOf(req).tenant, req.now, defaultPaymentsDeps())),
  }),
  route({
    method: 'GET',
    path: '/payments/min-amount/',
    auth: 'bearer',
    scopes: READ,
    query: MinAmountQuery,
    doc: { summary: 'Payment bounds of a currency', tags, responses: { 200: { description: 'Bounds (JSON numbers)', schema: MinAmount } } },
    handle: async (req) => ok(minAmount(req.query.currency, defaultPaymentsDeps())),
  }),
  route({
    method: 'GET',
    path: '/payments/{transaction_id}/',
    auth: 'bearer',
    scopes: READ,
    doc: { summary: 'Retrieve a payment', description: 'The create record plus confirmations, payment_history, merchant_received_usd.', tags, responses: { 200: { description: 'The payment', schema: PaymentRecord }, 404: { description: 'Unknown, or another tenant\'s' } } },
    handle: async (req) => ok(paymentRecord(await requirePayment(principalOf(req).tenant.id, req.params.transaction_id ?? ''))),
  }),
  route({
    method: 'PATCH',
    path: '/payments/{transaction_id}/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: UpdatePaymentBody,
    doc: { summary: 'Update order_id, order_description or callback_url', tags, responses: { 200: { description: 'The payment', schema: PaymentRecord }, 409: { description: 'invalid_state: settled payments cannot change' } } },
    handle: async (req) => ok(paymentRecord(await updatePayment(principalOf(req).tenant.id, req.params.transaction_id ?? '', req.body, req.now))),
  }),
  route({
    method: 'POST',
    path: '/payments/{transaction_id}/cancel/',
    auth: 'bearer',
    scopes: READ_WRITE,
    doc: { summary: 'Cancel a waiting payment with no deposit', description: 'Status becomes cancelled. Otherwise 409 invalid_state.', tags, responses: { 200: { description: 'The cancelled payment', schema: PaymentRecord }, 409: { description: 'invalid_state' } } },
    handle: async (req) => ok(paymentRecord(await cancelPayment(principalOf(req).tenant.id, req.params.transaction_id ?? '', req.now))),
  }),
];
