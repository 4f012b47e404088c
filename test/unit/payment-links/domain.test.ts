import { ConflictError, ValidationError } from '../../../shared/domain/errors.js';
import type { PaymentLinkDraft, PaymentLinkState } from '../../../shared/domain/payment-links.js';
import { completionCounts, deactivateLink, editLink, linkStatus, openLink, visitPrice } from '../../../shared/domain/payment-links.js';

/** The payment link's rules, pure: its validation, its statuses, what a visit may ask, when a completion counts. */
const NOW = new Date('2026-11-27T12:00:00Z');
const draft = (over: Partial<PaymentLinkDraft> = {}): PaymentLinkDraft => ({
  id: 'l1',
  tenantId: 't1',
  slug: 's1',
  name: 'Ticket',
  description: null,
  priceAmount: '25',
  priceCurrency: 'USD',
  allowCustomAmount: false,
  minAmount: null,
  maxAmount: null,
  currencies: ['USDTERC20', 'ETH'],
  maxCompletions: null,
  expiresAt: null,
  successUrl: null,
  metadata: {},
  ...over,
});
const field = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return Object.keys(error.details);
    throw error;
  }
  return [];
};

describe('a new link', () => {
  test('starts active with nothing counted', () => {
    const l = openLink(draft(), NOW);
    expect([linkStatus(l, NOW), l.completedCount, l.overLimitCount, l.deactivatedAt]).toEqual(['active', 0, 0, null]);
  });

  test.each([
    [{ priceAmount: null }, 'amount'],
    [{ allowCustomAmount: true }, 'amount'],
    [{ allowCustomAmount: true, priceAmount: null, minAmount: '10', maxAmount: '5' }, 'min_amount'],
    [{ minAmount: '5' }, 'min_amount'],
    [{ currencies: [] }, 'currencies'],
    [{ currencies: ['ETH', 'ETH'] }, 'currencies'],
    [{ expiresAt: '2026-11-27T11:59:59Z' }, 'expires_at'],
  ])('refuses %j naming %s', (over, name) => {
    expect(field(() => openLink(draft(over), NOW))).toEqual([name]);
  });
});

describe('statuses', () => {
  const base = openLink(draft({ maxCompletions: 2, expiresAt: '2026-12-01T00:00:00Z' }), NOW);
  test('completed once the count reaches the limit, expired after its end, inactive once deactivated (first)', () => {
    expect(linkStatus({ ...base, completedCount: 1 }, NOW)).toBe('active');
    expect(linkStatus({ ...base, completedCount: 2 }, NOW)).toBe('completed');
    expect(linkStatus(base, new Date('2026-12-01T00:00:00Z'))).toBe('expired');
    const off = deactivateLink({ ...base, completedCount: 2 }, NOW);
    expect(linkStatus(off, NOW)).toBe('inactive');
    expect(deactivateLink(off, new Date('2026-11-28T00:00:00Z'))).toBe(off);
  });

  test('a completion counts below the limit, and is over it from the limit on', () => {
    expect([completionCounts({ maxCompletions: null, completedCount: 1e6 }), completionCounts({ maxCompletions: 2, completedCount: 1 })]).toEqual([true, true]);
    expect(completionCounts({ maxCompletions: 2, completedCount: 2 })).toBe(false);
  });
});

describe('edits', () => {
  const l: PaymentLinkState = { ...openLink(draft({ maxCompletions: 5 }), NOW), completedCount: 3 };
  test('a limit never below what is counted; a deactivated link never changes', () => {
    expect(field(() => editLink(l, { maxCompletions: 2 }, NOW))).toEqual(['max_completions']);
    expect(editLink(l, { maxCompletions: 3, name: 'VIP' }, NOW)).toMatchObject({ maxCompletions: 3, name: 'VIP', completedCount: 3 });
    expect(() => editLink(deactivateLink(l, NOW), { name: 'x' }, NOW)).toThrow(ConflictError);
  });
});

describe('a visit', () => {
  test('takes the link price in a currency of the link', () => {
    const l = openLink(draft(), NOW);
    expect(visitPrice(l, { currency: 'ETH' }, NOW)).toBe('25');
    expect(field(() => visitPrice(l, { currency: 'USDCERC20' }, NOW))).toEqual(['currency']);
  });

  test('takes an amount the payer enters within the bounds', () => {
    const l = openLink(draft({ allowCustomAmount: true, priceAmount: null, minAmount: '5', maxAmount: '100' }), NOW);
    expect(visitPrice(l, { currency: 'ETH', amount: ' 42.50 ' }, NOW)).toBe('42.50');
    for (const amount of ['4.99', '100.01', '0', 'ten', '1.234', ''])
      expect([amount, field(() => visitPrice(l, { currency: 'ETH', amount }, NOW))]).toEqual([amount, ['amount']]);
  });

  test('opens nothing on a link that is not active', () => {
    const l = openLink(draft({ maxCompletions: 1 }), NOW);
    expect(() => visitPrice({ ...l, completedCount: 1 }, { currency: 'ETH' }, NOW)).toThrow(ConflictError);
    expect(() => visitPrice(deactivateLink(l, NOW), { currency: 'ETH' }, NOW)).toThrow(ConflictError);
  });
});
