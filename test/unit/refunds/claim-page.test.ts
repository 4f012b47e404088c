import type { RefundDraft, RefundState } from '../../../shared/domain/refunds.js';
import { openRefund, transition } from '../../../shared/domain/refunds.js';
import { claimState, claimView } from '../../../shared/usecases/refunds/claim.js';
import { CLAIM_MESSAGES } from '../../../functions/refund-claims/claim-i18n.js';
import { CLAIM_CONTENT_SECURITY_POLICY, CLAIM_STYLE, claimPage } from '../../../functions/refund-claims/claim-page.js';
import { createHash } from 'node:crypto';

/** The claim page's view of a refund (what a customer may see, the state the page is in) and its HTML. */
const now = new Date('2026-01-01T00:00:00Z');
const later = (hours: number) => new Date(now.getTime() + hours * 3600_000);
const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

const draft = (over: Partial<RefundDraft> = {}): RefundDraft => ({
  id: 'r1',
  tenantId: 'tenant-secret',
  paymentId: 'p1',
  currency: 'USDTERC20',
  network: 'ETH',
  amount: '10.5',
  networkFee: '1.25',
  address: null,
  memo: null,
  reason: 'internal note for the merchant',
  account: 'main',
  callbackUrl: 'https://merchant.example/hook',
  claimToken: 'AAAAAAAAAAAAAAAAAAAAAA',
  ...over,
});
const awaiting = (over: Partial<RefundDraft> = {}): RefundState => openRefund(draft(over), now).state;

describe('claim view', () => {
  it('an open claim: the amount, the network fee, what is sent, the asset; no address yet', () => {
    const v = claimView(awaiting(), later(1));
    expect(v).toMatchObject({
      state: 'open',
      status: 'awaiting_address',
      currency: 'USDTERC20',
      token: 'USDT',
      networkName: 'Ethereum',
      standard: 'ERC-20',
      amount: '10.5',
      networkFee: '1.25',
      amountSent: '9.25',
      address: null,
      memoRequired: false,
    });
  });

  it('asks for the memo only where the network needs one (no payable network does yet)', () => {
    const view = claimView(awaiting(), now);
    const action = '/refund-claims/AAAAAAAAAAAAAAAAAAAAAA';
    expect(claimPage({ view, locale: 'en', action })).not.toContain('name="memo"');
    expect(claimPage({ view: { ...view, memoRequired: true }, locale: 'en', action })).toContain('name="memo"');
  });

  it('each state: open until the deadline, then expired; set once pending or later; cancelled; failed closed', () => {
    const r = awaiting();
    expect(claimState(r, later(71))).toBe('open');
    expect(claimState(r, later(72))).toBe('expired');
    const pending = transition(r, { kind: 'address_set', address: ADDRESS, memo: null, networkFee: '2' }, later(1)).state;
    expect([pending.status, pending.networkFee, claimState(pending, later(100))]).toEqual(['pending', '2', 'set']);
    expect(claimState({ status: 'processing', claimExpiresAt: null }, now)).toBe('set');
    expect(claimState({ status: 'completed', claimExpiresAt: null }, now)).toBe('set');
    expect(claimState(transition(r, { kind: 'cancel' }, later(1)).state, later(1))).toBe('cancelled');
    expect(claimState(transition(r, { kind: 'expire' }, later(73)).state, later(73))).toBe('expired');
    expect(claimState(transition(pending, { kind: 'failed', reason: 'x' }, later(2)).state, later(2))).toBe('closed');
  });

  it('address_set without a re-priced fee keeps the estimate', () => {
    expect(transition(awaiting(), { kind: 'address_set', address: ADDRESS, memo: null }, later(1)).state.networkFee).toBe('1.25');
  });
});

describe('claim page', () => {
  const action = '/refund-claims/AAAAAAAAAAAAAAAAAAAAAA';

  it('an open claim: a POST form to itself, the address asked twice, no script, nothing of the merchant internals', () => {
    const html = claimPage({ view: claimView(awaiting(), now), locale: 'en', action });
    expect(html).toContain(`<form method="post" action="${action}">`);
    expect(html).toContain('name="address"');
    expect(html).toContain('name="address_confirmation"');
    expect(html).not.toContain('name="memo"');
    expect(html).not.toContain('<script');
    expect(html).toContain('10.5 USDT');
    expect(html).toContain('9.25 USDT');
    for (const secret of ['tenant-secret', 'internal note', 'merchant.example']) expect(html).not.toContain(secret);
  });

  it('a set claim: the address shown read-only, no form', () => {
    const pending = transition(awaiting(), { kind: 'address_set', address: ADDRESS, memo: null }, later(1)).state;
    const html = claimPage({ view: claimView(pending, later(1)), locale: 'en', action });
    expect(html).not.toContain('<form');
    expect(html).toContain(ADDRESS);
    expect(html).toContain(CLAIM_MESSAGES.en.pending);
  });

  it('speaks German and Spanish; a refused entry is shown back escaped with its reason', () => {
    const view = claimView(awaiting(), now);
    expect(claimPage({ view, locale: 'de', action })).toContain(CLAIM_MESSAGES.de.submit);
    const html = claimPage({ view, locale: 'es', action, form: { address: '<b>x', confirmation: 'y"', memo: '', error: CLAIM_MESSAGES.es.mismatch } });
    expect(html).toContain(CLAIM_MESSAGES.es.mismatch);
    expect(html).toContain('value="&lt;b&gt;x"');
    expect(html).toContain('value="y&quot;"');
    expect(html).not.toContain('<b>x');
  });

  it('its policy allows its one style by hash, forms to its own origin only, and no script', () => {
    const hash = createHash('sha256').update(CLAIM_STYLE, 'utf8').digest('base64');
    expect(CLAIM_CONTENT_SECURITY_POLICY).toContain(`style-src 'sha256-${hash}'`);
    expect(CLAIM_CONTENT_SECURITY_POLICY).toContain("form-action 'self'");
    expect(CLAIM_CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CLAIM_CONTENT_SECURITY_POLICY).not.toContain('script-src');
  });
});
