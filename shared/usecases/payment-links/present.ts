import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';
import type { PaymentLinkState } from '../../domain/payment-links.js';
import { linkStatus, PAYMENT_LINK_STATUSES } from '../../domain/payment-links.js';

/** The answer shape of a payment link (published in /openapi.json) beside its presenter. */
export const PaymentLinkRecord = lazySchema(() =>
  z
    .object({
      id: z.string().uuid(),
      url: z.string().url().describe('The public page: a payer opens it, chooses a currency (and the amount where allowed) and pays'),
      name: z.string(),
      description: z.string().nullable(),
      status: z.enum(PAYMENT_LINK_STATUSES),
      amount: z.string().nullable().describe('The price in price_currency; null with allow_custom_amount'),
      price_currency: z.string(),
      allow_custom_amount: z.boolean(),
      min_amount: z.string().nullable(),
      max_amount: z.string().nullable(),
      currencies: z.array(z.string()),
      max_completions: z.number().int().nullable(),
      completed_count: z.number().int().describe('Completed payments counted against max_completions (exact)'),
      over_limit_count: z
        .number()
        .int()
        .describe('Payments opened before the limit was reached that completed after it: credited, flagged payment_link_over_limit'),
      expires_at: z.string().nullable(),
      success_url: z.string().nullable(),
      metadata: z.record(z.string(), z.string()),
      deactivated_at: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'PaymentLink' }),
);

/** The public page of a link, on the API's host. */
export const linkPageUrl = (origin: string, slug: string): string => `${origin.replace(/\/$/, '')}/pay/${slug}`;

export function paymentLinkRecord(l: PaymentLinkState, origin: string, now: Date): LazyOutput<typeof PaymentLinkRecord> {
  return {
    id: l.id,
    url: linkPageUrl(origin, l.slug),
    name: l.name,
    description: l.description,
    status: linkStatus(l, now),
    amount: l.priceAmount,
    price_currency: l.priceCurrency,
    allow_custom_amount: l.allowCustomAmount,
    min_amount: l.minAmount,
    max_amount: l.maxAmount,
    currencies: [...l.currencies],
    max_completions: l.maxCompletions,
    completed_count: l.completedCount,
    over_limit_count: l.overLimitCount,
    expires_at: l.expiresAt,
    success_url: l.successUrl,
    metadata: { ...l.metadata },
    deactivated_at: l.deactivatedAt,
    created_at: l.createdAt,
    updated_at: l.updatedAt,
  };
}
