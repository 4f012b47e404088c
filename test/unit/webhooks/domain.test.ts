import {
  defaultUrlReceives,
  envelopeA,
  envelopeB,
  queueDelaySeconds,
  retryDelaySeconds,
  subscriptionAfterAttempt,
  subscriptionMatches,
  unknownSubscriptionTypes,
} from '../../../shared/domain/webhooks.js';

describe('webhook rules', () => {
  it('matches subscriptions exactly or through their family .all', () => {
    expect(subscriptionMatches(['payment.completed'], 'payment.completed')).toBe(true);
    expect(subscriptionMatches(['payment.completed'], 'payment.failed')).toBe(false);
    expect(subscriptionMatches(['payment.all'], 'payment.expired')).toBe(true);
    expect(subscriptionMatches(['payment.all'], 'withdrawal.completed')).toBe(false);
    expect(subscriptionMatches(['security.all'], 'security.login_attempt')).toBe(true);
    expect(subscriptionMatches(['payment.all'], 'payment_status_update')).toBe(false);
    expect(unknownSubscriptionTypes(['payment.all', 'payment.paid'])).toEqual(['payment.paid']);
  });

  it('filters the default URL with enabled_events (all delivery events when unset)', () => {
    expect(defaultUrlReceives(null, 'deposit_received')).toBe(true);
    expect(defaultUrlReceives(['payment_status_update'], 'deposit_received')).toBe(false);
    expect(defaultUrlReceives(null, 'payment.completed')).toBe(false);
  });

  it('builds envelopes A and B', () => {
    expect(envelopeA('deposit_received', { a: 1 }, 't')).toEqual({ event: 'deposit_received', data: { a: 1 }, timestamp: 't' });
    expect(envelopeB('id', 'payment.completed', 't', {})).toEqual({ id: 'id', event: 'payment.completed', created_at: 't', data: {} });
  });

  it('retries at 1 m, 5 m, 15 m, 1 h, 4 h, then stops', () => {
    expect([1, 2, 3, 4, 5, 6].map(retryDelaySeconds)).toEqual([60, 300, 900, 3600, 14400, null]);
    const now = new Date(0);
    expect(queueDelaySeconds(new Date(3600_000), now)).toBe(900);
    expect(queueDelaySeconds(new Date(61_500), now)).toBe(62);
    expect(queueDelaySeconds(new Date(-5), now)).toBe(0);
  });

  it('turns a subscription inactive at 5 consecutive failures and resets on success', () => {
    let s = { failureCount: 0, status: 'active' as const as 'active' | 'inactive' };
    for (let i = 0; i < 4; i++) s = subscriptionAfterAttempt(s, false);
    expect(s).toEqual({ failureCount: 4, status: 'active' });
    expect(subscriptionAfterAttempt(s, true)).toEqual({ failureCount: 0, status: 'active' });
    expect(subscriptionAfterAttempt(s, false)).toEqual({ failureCount: 5, status: 'inactive' });
  });
});
