import type { PaymentLinkState } from '../../domain/payment-links.js';
import type { PaymentState } from '../../domain/payments.js';
import type { Tenant } from '../../domain/tenant.js';
import type { WriteItem } from '../ports.js';
import type { PaymentsDeps } from '../payments/ports.js';

/**
 * What the payment-link use cases need from outside. `shared/runtime/payment-links.ts` builds the real ones (the
 * DynamoDB repository, the payment use cases' ports, the tenants).
 */

/** A page of a list: its items and the cursor of the next page (null: the last). */
export interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | null;
}

export interface PaymentLinkRepository {
  /** The link, its list entry and its page's lookup, with `alsoWrite` (an Idempotency-Key record), in ONE transaction. */
  create(link: PaymentLinkState, alsoWrite?: (stored: PaymentLinkState) => readonly WriteItem[]): Promise<PaymentLinkState>;
  get(tenantId: string, linkId: string): Promise<PaymentLinkState | null>;
  /** The link a public page names. */
  bySlug(slug: string): Promise<PaymentLinkState | null>;
  /**
   * The merchant's change, conditioned on the version read (ConflictError when it moved) and, for a limit, on the
   * count staying within it; the counters are left as they are. `alsoWrite` commits with it.
   */
  save(previous: PaymentLinkState, next: PaymentLinkState, alsoWrite?: (stored: PaymentLinkState) => readonly WriteItem[]): Promise<PaymentLinkState>;
  /** A tenant's links, newest first, `limit` a page after the cursor `after`. */
  list(tenantId: string, limit: number, after: string | null): Promise<Page<PaymentLinkState>>;
  /** The payments the link opened, oldest first, `limit` a page after the cursor `after`. */
  payments(tenantId: string, linkId: string, limit: number, after: string | null): Promise<Page<PaymentState>>;
  /**
   * Written with a payment a visit opens: the link's payments list entry, and a check that the link is still open
   * as read (not deactivated meanwhile, its count below its limit).
   */
  openingItems(link: PaymentLinkState, payment: PaymentState): WriteItem[];
  /**
   * Written with a completing payment of the link: its count plus one on condition it is below the limit
   * (`counted`), else its over-limit count plus one on condition the limit is reached.
   */
  completionItem(link: PaymentLinkState, counted: boolean): WriteItem;
}

export interface PaymentLinksDeps {
  readonly links: PaymentLinkRepository;
  /** The payment creation's ports: a visit opens an ordinary payment through `createPayment`. */
  readonly payments: PaymentsDeps;
  readonly tenants: { get(tenantId: string): Promise<Tenant | null> };
  readonly settings: { readonly publicBaseUrl: string | null; readonly allowLoopbackUrls: boolean };
}
