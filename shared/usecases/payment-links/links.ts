import { randomBytes, randomUUID } from 'node:crypto';
import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { GatewayError, NotFoundError } from '../../domain/errors.js';
import type { PaymentLinkState } from '../../domain/payment-links.js';
import { deactivateLink, editLink, MAX_LINK_CURRENCIES, openLink } from '../../domain/payment-links.js';
import type { PaymentState } from '../../domain/payments.js';
import { checkCallbackUrlSyntax } from '../../net/callback-url.js';
import { resolvePayCurrency, resolvePriceCurrency } from '../payments/resolve.js';
import type { IdempotencyGuard } from '../ports.js';
import { decimal, integerInput } from '../schema.js';
import type { Page, PaymentLinksDeps } from './ports.js';

/**
 * The merchant's payment links (issue 30): create, read, list, change, deactivate, and the payments a link opened.
 * A link's currencies must be payable here when it is made (422 `invalid_currency` otherwise, as a payment's).
 */

const Metadata = lazySchema(() =>
  z
    .record(z.string().min(1).max(40), z.string().max(500))
    .refine((m) => Object.keys(m).length <= 20, 'At most 20 keys.')
    .describe('Up to 20 keys of your own, returned as given'),
);
const Instant = lazySchema(() =>
  z
    .string()
    .trim()
    .refine((v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)), 'Must be an ISO 8601 date-time, such as 2026-12-31T23:59:59Z.'),
);
const MaxCompletions = lazySchema(() => integerInput().pipe(z.number().int().min(1, 'Must be at least 1.').max(1_000_000, 'Must be at most 1000000.')));

export const CreatePaymentLinkBody = lazySchema(() =>
  z
    .object({
      name: z.string().trim().min(1).max(200).describe("What the payer sees on the page, and the payments' order_description"),
      description: z.string().trim().max(1000).optional(),
      amount: decimal({ maxScale: 2, positive: true }).optional().describe('The price in price_currency; omitted with allow_custom_amount'),
      price_currency: z.string().trim().min(1).max(10).optional().describe('USD (default), EUR or GBP'),
      allow_custom_amount: z.boolean().optional().describe('The payer enters the amount on the page, within min_amount and max_amount'),
      min_amount: decimal({ maxScale: 2, positive: true }).optional(),
      max_amount: decimal({ maxScale: 2, positive: true }).optional(),
      currencies: z
        .array(z.string().trim().min(1).max(20))
        .min(1)
        .max(MAX_LINK_CURRENCIES)
        .describe('Currency codes the payer chooses from (one: the page offers no choice)'),
      max_completions: MaxCompletions().optional().describe('Completed payments after which the link stops opening payments (exact)'),
      expires_at: Instant().optional(),
      success_url: z.string().max(2048).optional().describe('Where the checkout sends the payer once paid (HTTPS)'),
      metadata: Metadata().optional(),
    })
    .meta({ id: 'CreatePaymentLink' }),
);
export type CreatePaymentLinkBody = z.output<ReturnType<typeof CreatePaymentLinkBody>>;

export const UpdatePaymentLinkBody = lazySchema(() =>
  z
    .object({
      name: z.string().trim().min(1).max(200).optional(),
      description: z.string().trim().max(1000).nullable().optional(),
      max_completions: MaxCompletions().nullable().optional(),
      expires_at: Instant().nullable().optional(),
      success_url: z.string().max(2048).nullable().optional(),
      metadata: Metadata().optional(),
    })
    .meta({ id: 'UpdatePaymentLink' }),
);
export type UpdatePaymentLinkBody = z.output<ReturnType<typeof UpdatePaymentLinkBody>>;

export const PaymentLinkPath = lazySchema(() => z.object({ link_id: z.string().uuid('Not a payment link id.') }));
export const PageQuery = lazySchema(() =>
  z.object({
    limit: integerInput().pipe(z.number().int().min(1, 'Must be at least 1.').max(100, 'Must be at most 100.')).optional(),
    cursor: z.string().max(1000).optional().describe("The previous page's next_cursor"),
  }),
);
export type PageQuery = z.output<ReturnType<typeof PageQuery>>;

const successUrlOf = (raw: string | null | undefined, deps: PaymentLinksDeps): string | null | undefined =>
  raw === undefined || raw === null ? raw : checkCallbackUrlSyntax(raw, { allowLoopback: deps.settings.allowLoopbackUrls }, 'success_url').toString();
const instantOf = (raw: string | null | undefined): string | null | undefined => (raw === undefined || raw === null ? raw : new Date(raw).toISOString());

export async function createPaymentLink(
  input: { tenantId: string; body: CreatePaymentLinkBody; now: Date; idempotency?: IdempotencyGuard<PaymentLinkState> | null },
  deps: PaymentLinksDeps,
): Promise<PaymentLinkState> {
  const { body, now } = input;
  const currencies = body.currencies.map((code, i) => {
    try {
      return resolvePayCurrency({ currency: code }, deps.payments).code;
    } catch (error) {
      // The field named with its position in the request.
      if (!(error instanceof GatewayError)) throw error;
      throw new GatewayError(error.code, error.message, { ...error.details, field: `currencies.${i}` });
    }
  });
  const link = openLink(
    {
      id: randomUUID(),
      tenantId: input.tenantId,
      slug: randomBytes(16).toString('base64url'),
      name: body.name,
      description: body.description ?? null,
      priceAmount: body.amount ?? null,
      priceCurrency: resolvePriceCurrency(body.price_currency),
      allowCustomAmount: body.allow_custom_amount ?? false,
      minAmount: body.min_amount ?? null,
      maxAmount: body.max_amount ?? null,
      currencies,
      maxCompletions: body.max_completions ?? null,
      expiresAt: instantOf(body.expires_at) ?? null,
      successUrl: successUrlOf(body.success_url, deps) ?? null,
      metadata: body.metadata ?? {},
    },
    now,
  );
  const guard = input.idempotency;
  return deps.links.create(link, guard ? (stored) => [guard.completeItem(stored)] : undefined);
}

export async function requirePaymentLink(tenantId: string, linkId: string, deps: Pick<PaymentLinksDeps, 'links'>): Promise<PaymentLinkState> {
  const link = await deps.links.get(tenantId, linkId);
  if (!link) throw new NotFoundError('The payment link was not found.');
  return link;
}

export async function updatePaymentLink(
  tenantId: string,
  linkId: string,
  body: UpdatePaymentLinkBody,
  now: Date,
  deps: PaymentLinksDeps,
): Promise<PaymentLinkState> {
  const link = await requirePaymentLink(tenantId, linkId, deps);
  const next = editLink(
    link,
    {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.max_completions !== undefined ? { maxCompletions: body.max_completions } : {}),
      ...(body.expires_at !== undefined ? { expiresAt: instantOf(body.expires_at) as string | null } : {}),
      ...(body.success_url !== undefined ? { successUrl: successUrlOf(body.success_url, deps) as string | null } : {}),
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    },
    now,
  );
  return deps.links.save(link, next);
}

export async function deactivatePaymentLink(
  tenantId: string,
  linkId: string,
  now: Date,
  deps: Pick<PaymentLinksDeps, 'links'>,
  guard: IdempotencyGuard<PaymentLinkState> | null,
): Promise<PaymentLinkState> {
  const link = await requirePaymentLink(tenantId, linkId, deps);
  const next = deactivateLink(link, now);
  if (next === link && !guard) return link;
  return deps.links.save(link, next, guard ? (stored) => [guard.completeItem(stored)] : undefined);
}

export const listPaymentLinks = (tenantId: string, query: PageQuery, deps: Pick<PaymentLinksDeps, 'links'>): Promise<Page<PaymentLinkState>> =>
  deps.links.list(tenantId, query.limit ?? 20, query.cursor ?? null);

export async function listLinkPayments(tenantId: string, linkId: string, query: PageQuery, deps: Pick<PaymentLinksDeps, 'links'>): Promise<Page<PaymentState>> {
  await requirePaymentLink(tenantId, linkId, deps);
  return deps.links.payments(tenantId, linkId, query.limit ?? 20, query.cursor ?? null);
}
