import { publicOrigin } from '../../shared/http/origin.js';
import * as z from 'zod';
import type { PaymentLinkState } from '../../shared/domain/payment-links.js';
import type { PaymentState } from '../../shared/domain/payments.js';
import { lazySchema } from '../../shared/domain/lazy-schema.js';
import { READ, READ_WRITE } from '../../shared/domain/scopes.js';
import { created, ok, principalOf, routesOf } from '../../shared/http/route.js';
import {
  CreatePaymentLinkBody,
  createPaymentLink,
  deactivatePaymentLink,
  listLinkPayments,
  listPaymentLinks,
  PageQuery,
  PaymentLinkPath,
  requirePaymentLink,
  UpdatePaymentLinkBody,
  updatePaymentLink,
} from '../../shared/usecases/payment-links/links.js';
import type { PaymentLinksDeps } from '../../shared/usecases/payment-links/ports.js';
import { PaymentLinkRecord, paymentLinkRecord } from '../../shared/usecases/payment-links/present.js';
import { PaymentRecord, paymentLinks, paymentRecord } from '../../shared/usecases/payments/present.js';

/** Payment links (issue 30, beside the interface's groups): a link is a template; each visit that pays opens a payment. */
const tags = ['Payment links'];
const route = routesOf<PaymentLinksDeps>();

/** Links on the deployment's public base URL (shared/http/origin.ts). */
const originOf = (req: Parameters<typeof publicOrigin>[0], deps: PaymentLinksDeps): string => publicOrigin(req, deps.settings.publicBaseUrl);

const LinkPage = lazySchema(() => z.object({ results: z.array(PaymentLinkRecord()), next_cursor: z.string().nullable() }));
const PaymentsPage = lazySchema(() => z.object({ results: z.array(PaymentRecord()), next_cursor: z.string().nullable() }));

export const paymentLinkRoutes = [
  route({
    method: 'POST',
    path: '/payment-links/',
    auth: 'bearer',
    scopes: READ_WRITE,
    body: CreatePaymentLinkBody,
    idempotent: true,
    doc: {
      summary: 'Create a payment link',
      description: [
        'A public page (url) many payers use: each payer who asks to pay on it gets a fresh ordinary payment (its own deposit address, the rate of that moment, the normal expiry) carrying payment_link_id.',
        'Either amount (with price_currency) or allow_custom_amount with optional min_amount and max_amount. currencies: the codes the payer chooses from; each must be payable here (422 invalid_currency).',
        "max_completions is exact: the link counts a completion in the completing payment's own transaction; a payment opened before the limit was reached that completes after it is still credited, flagged payment_link_over_limit and counted in over_limit_count.",
      ].join(' '),
      tags,
      responses: {
        201: { description: 'The link', schema: PaymentLinkRecord },
        400: { description: 'invalid_request, details per field' },
        422: { description: 'invalid_currency (details.field, supported_currencies)' },
      },
    },
    handle: async (req, deps) => {
      const present = (l: PaymentLinkState) => created(paymentLinkRecord(l, originOf(req, deps), req.now));
      return present(
        await createPaymentLink(
          { tenantId: principalOf(req).tenant.id, body: req.body, now: req.now, idempotency: req.idempotency?.with(present) ?? null },
          deps,
        ),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/payment-links/',
    auth: 'bearer',
    scopes: READ,
    query: PageQuery,
    doc: {
      summary: 'List payment links',
      description: 'Newest first, limit (default 20, at most 100) a page; next_cursor names the next page (null on the last).',
      tags,
      responses: { 200: { description: '{results[], next_cursor}', schema: LinkPage } },
    },
    handle: async (req, deps) => {
      const page = await listPaymentLinks(principalOf(req).tenant.id, req.query, deps);
      return ok({ results: page.items.map((l) => paymentLinkRecord(l, originOf(req, deps), req.now)), next_cursor: page.next });
    },
  }),
  route({
    method: 'GET',
    path: '/payment-links/{link_id}/',
    auth: 'bearer',
    scopes: READ,
    params: PaymentLinkPath,
    doc: {
      summary: 'Retrieve a payment link',
      tags,
      responses: { 200: { description: 'The link', schema: PaymentLinkRecord }, 404: { description: "Unknown, or another tenant's" } },
    },
    handle: async (req, deps) =>
      ok(paymentLinkRecord(await requirePaymentLink(principalOf(req).tenant.id, req.params.link_id, deps), originOf(req, deps), req.now)),
  }),
  route({
    method: 'PATCH',
    path: '/payment-links/{link_id}/',
    auth: 'bearer',
    scopes: READ_WRITE,
    params: PaymentLinkPath,
    body: UpdatePaymentLinkBody,
    doc: {
      summary: 'Change a payment link',
      description:
        'name, description, max_completions (never below completed_count), expires_at, success_url, metadata; null clears a field. Its price and currencies never change (create another link). A deactivated link: 409 invalid_state.',
      tags,
      responses: {
        200: { description: 'The link', schema: PaymentLinkRecord },
        400: { description: 'invalid_request, details per field' },
        404: { description: "Unknown, or another tenant's" },
        409: { description: 'invalid_state: deactivated, or changed meanwhile' },
      },
    },
    handle: async (req, deps) =>
      ok(paymentLinkRecord(await updatePaymentLink(principalOf(req).tenant.id, req.params.link_id, req.body, req.now, deps), originOf(req, deps), req.now)),
  }),
  route({
    method: 'POST',
    path: '/payment-links/{link_id}/deactivate/',
    auth: 'bearer',
    scopes: READ_WRITE,
    params: PaymentLinkPath,
    idempotent: true,
    doc: {
      summary: 'Deactivate a payment link',
      description: 'For good: its page opens no more payments and says so. Payments already open are not touched. Repeating it changes nothing.',
      tags,
      responses: { 200: { description: 'The link, inactive', schema: PaymentLinkRecord }, 404: { description: "Unknown, or another tenant's" } },
    },
    handle: async (req, deps) => {
      const present = (l: PaymentLinkState) => ok(paymentLinkRecord(l, originOf(req, deps), req.now));
      return present(await deactivatePaymentLink(principalOf(req).tenant.id, req.params.link_id, req.now, deps, req.idempotency?.with(present) ?? null));
    },
  }),
  route({
    method: 'GET',
    path: '/payment-links/{link_id}/payments/',
    auth: 'bearer',
    scopes: READ,
    params: PaymentLinkPath,
    query: PageQuery,
    doc: {
      summary: "A payment link's payments",
      description: 'The payments its page opened, oldest first, limit (default 20, at most 100) a page; next_cursor names the next page.',
      tags,
      responses: { 200: { description: '{results[], next_cursor}', schema: PaymentsPage }, 404: { description: "Unknown, or another tenant's" } },
    },
    handle: async (req, deps) => {
      const links = paymentLinks(originOf(req, deps));
      const page = await listLinkPayments(principalOf(req).tenant.id, req.params.link_id, req.query, deps);
      const refunded = async (p: PaymentState) => (p.merchantReceived !== null && deps.payments.refunded ? deps.payments.refunded(p.tenantId, p.id) : '0');
      return ok({ results: await Promise.all(page.items.map(async (p) => paymentRecord(p, links, await refunded(p)))), next_cursor: page.next });
    },
  }),
];
