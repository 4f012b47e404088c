import { ConflictError, ValidationError } from './errors.js';
import type { Decimal } from './money.js';
import { gt, lt } from './money.js';

/**
 * Payment links, pure (issue 30, DESIGN section 12): a link is a template many payers use; each visit that asks to
 * pay opens an ordinary payment carrying `paymentLinkId`. The link itself never holds money.
 *
 * Status: `active` until one of
 * - `inactive`: the merchant deactivated it (`POST /payment-links/{id}/deactivate/`), for good;
 * - `completed`: `completedCount` reached `maxCompletions`;
 * - `expired`: `expiresAt` passed.
 * Only an active link opens payments. `completed` and `expired` are read from the counters and the clock, never
 * stored, so no writer has to move them; `inactive` is stored.
 *
 * Completions are exact: the link's `completedCount` moves in the completing payment's own transaction, on condition
 * `completedCount < maxCompletions`. A payment opened while the link was active that completes once the limit is
 * reached still completes and credits the merchant (its money arrived): it is flagged `payment_link_over_limit`
 * (announced with its `payment.completed`), counted in the link's `overLimitCount` (on condition that the limit is
 * indeed reached), and the merchant may refund it like any completed payment. Nothing is lost or counted twice.
 */

export const PAYMENT_LINK_STATUSES = ['active', 'inactive', 'expired', 'completed'] as const;
export type PaymentLinkStatus = (typeof PAYMENT_LINK_STATUSES)[number];

/** At most this many currencies a payer chooses from. */
export const MAX_LINK_CURRENCIES = 20;

export interface PaymentLinkState {
  readonly id: string;
  readonly tenantId: string;
  /** The public page's name of the link (128 random bits, base64url): `<origin>/pay/<slug>`. */
  readonly slug: string;
  readonly name: string;
  readonly description: string | null;
  /** The price in `priceCurrency`; null when the payer enters the amount (`allowCustomAmount`). */
  readonly priceAmount: Decimal | null;
  readonly priceCurrency: string;
  readonly allowCustomAmount: boolean;
  /** Bounds of a payer's amount, in `priceCurrency` (custom amounts only). */
  readonly minAmount: Decimal | null;
  readonly maxAmount: Decimal | null;
  /** Currency codes the payer chooses from (one: no choice to make). */
  readonly currencies: readonly string[];
  readonly maxCompletions: number | null;
  readonly completedCount: number;
  /** Payments opened while the link was active that completed after the limit was reached (credited, flagged). */
  readonly overLimitCount: number;
  readonly expiresAt: string | null;
  readonly successUrl: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly deactivatedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Optimistic lock of the merchant's changes (the counters move without it). */
  readonly version: number;
}

export type PaymentLinkDraft = Omit<PaymentLinkState, 'completedCount' | 'overLimitCount' | 'deactivatedAt' | 'createdAt' | 'updatedAt' | 'version'>;

/** The link's status at `now`. */
export function linkStatus(l: PaymentLinkState, now: Date): PaymentLinkStatus {
  if (l.deactivatedAt !== null) return 'inactive';
  if (l.maxCompletions !== null && l.completedCount >= l.maxCompletions) return 'completed';
  if (l.expiresAt !== null && Date.parse(l.expiresAt) <= now.getTime()) return 'expired';
  return 'active';
}

/** Checks the cross-field rules of a new link: a price, or a custom amount within its bounds. */
export function openLink(draft: PaymentLinkDraft, now: Date): PaymentLinkState {
  if (draft.allowCustomAmount) {
    if (draft.priceAmount !== null) throw ValidationError.field('amount', 'A link with allow_custom_amount takes no amount: the payer enters it.');
    if (draft.minAmount !== null && draft.maxAmount !== null && gt(draft.minAmount, draft.maxAmount)) {
      throw ValidationError.field('min_amount', 'min_amount must not exceed max_amount.');
    }
  } else {
    if (draft.priceAmount === null) throw ValidationError.field('amount', 'This field is required unless allow_custom_amount is true.');
    if (draft.minAmount !== null || draft.maxAmount !== null) {
      throw ValidationError.field('min_amount', 'min_amount and max_amount apply only with allow_custom_amount.');
    }
  }
  if (draft.currencies.length === 0) throw ValidationError.field('currencies', 'Name at least one currency.');
  if (new Set(draft.currencies).size !== draft.currencies.length) throw ValidationError.field('currencies', 'A currency is named twice.');
  if (draft.expiresAt !== null && Date.parse(draft.expiresAt) <= now.getTime()) throw ValidationError.field('expires_at', 'Must be in the future.');
  const at = now.toISOString();
  return { ...draft, completedCount: 0, overLimitCount: 0, deactivatedAt: null, createdAt: at, updatedAt: at, version: 0 };
}

/** What the merchant may change (`PATCH`); `null` clears a field. */
export interface PaymentLinkEdit {
  readonly name?: string;
  readonly description?: string | null;
  readonly maxCompletions?: number | null;
  readonly expiresAt?: string | null;
  readonly successUrl?: string | null;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** The merchant's edit: refused once deactivated; a limit never below what is already counted. */
export function editLink(l: PaymentLinkState, edit: PaymentLinkEdit, now: Date): PaymentLinkState {
  if (l.deactivatedAt !== null) throw new ConflictError('A deactivated payment link can no longer be changed.', { status: 'inactive' });
  if (edit.maxCompletions !== undefined && edit.maxCompletions !== null && edit.maxCompletions < l.completedCount) {
    throw ValidationError.field('max_completions', `Must be at least the ${l.completedCount} completions already counted.`);
  }
  if (edit.expiresAt !== undefined && edit.expiresAt !== null && Date.parse(edit.expiresAt) <= now.getTime()) {
    throw ValidationError.field('expires_at', 'Must be in the future.');
  }
  return {
    ...l,
    ...(edit.name !== undefined ? { name: edit.name } : {}),
    ...(edit.description !== undefined ? { description: edit.description } : {}),
    ...(edit.maxCompletions !== undefined ? { maxCompletions: edit.maxCompletions } : {}),
    ...(edit.expiresAt !== undefined ? { expiresAt: edit.expiresAt } : {}),
    ...(edit.successUrl !== undefined ? { successUrl: edit.successUrl } : {}),
    ...(edit.metadata !== undefined ? { metadata: edit.metadata } : {}),
    updatedAt: now.toISOString(),
  };
}

/** Deactivation: for good, and repeating it changes nothing. */
export function deactivateLink(l: PaymentLinkState, now: Date): PaymentLinkState {
  if (l.deactivatedAt !== null) return l;
  const at = now.toISOString();
  return { ...l, deactivatedAt: at, updatedAt: at };
}

/** What a payer's visit asks for: a currency of the link's, and the amount when the payer enters it. */
export interface LinkVisit {
  readonly currency: string;
  readonly amount?: string;
}

/** The price of a payment a visit opens, or why it opens none (the link not active, a currency or amount refused). */
export function visitPrice(l: PaymentLinkState, visit: LinkVisit, now: Date): Decimal {
  const status = linkStatus(l, now);
  if (status !== 'active') throw new ConflictError(`The payment link is ${status}.`, { status });
  if (!l.currencies.includes(visit.currency)) throw ValidationError.field('currency', `Choose one of ${l.currencies.join(', ')}.`);
  if (!l.allowCustomAmount) return l.priceAmount as Decimal;
  const amount = visit.amount?.trim() ?? '';
  if (!/^\d{1,12}(\.\d{1,2})?$/.test(amount) || !gt(amount, '0')) throw ValidationError.field('amount', 'Enter an amount, such as 25 or 25.50.');
  if (l.minAmount !== null && lt(amount, l.minAmount)) throw ValidationError.field('amount', `The amount must be at least ${l.minAmount} ${l.priceCurrency}.`);
  if (l.maxAmount !== null && gt(amount, l.maxAmount)) throw ValidationError.field('amount', `The amount must be at most ${l.maxAmount} ${l.priceCurrency}.`);
  return amount;
}

/** Whether a completing payment of the link is counted (within the limit) or over it. */
export const completionCounts = (l: Pick<PaymentLinkState, 'maxCompletions' | 'completedCount'>): boolean =>
  l.maxCompletions === null || l.completedCount < l.maxCompletions;
