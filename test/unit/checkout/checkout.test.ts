import { createHash } from 'node:crypto';
import { CONTENT_SECURITY_POLICY, SCRIPT, STYLE } from '../../../functions/checkout/assets.js';
import { formatAmount, formatPrice, LOCALES, MESSAGES, negotiate } from '../../../functions/checkout/i18n.js';
import { checkoutPage, escapeHtml } from '../../../functions/checkout/page.js';
import type { CheckoutContext } from '../../../shared/domain/checkout.js';
import { checkoutStateOf, checkoutView, paymentUri, tokenStandard } from '../../../shared/domain/checkout.js';
import { CURRENCIES, NETWORKS } from '../../../shared/domain/currencies.js';
import { PAYMENT_STATUSES } from '../../../shared/domain/payments.js';
import { clientRateLimiter } from '../../../shared/http/client-rate-limit.js';
import { aDeposit, aPayment } from '../../support/fixtures/payments.js';

const TOKEN = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const DEPOSIT = '0x1111111111111111111111111111111111111111';
const ctx: CheckoutContext = { merchantName: 'Acme', currency: CURRENCIES.USDTERC20, chainId: 1, tokenContract: TOKEN, confirmationsRequired: 12 };

describe('checkout state', () => {
  it('maps every payment status to what the page shows', () => {
    const shown = Object.fromEntries(PAYMENT_STATUSES.map((status) => [status, checkoutStateOf({ status, deposits: [] })]));
    expect(shown).toEqual({
      waiting: 'waiting',
      confirming: 'seen',
      confirmed: 'paid',
      sending: 'paid',
      completed: 'paid',
      expired: 'expired',
      failed: 'failed',
      cancelled: 'cancelled',
      partially_paid: 'partially_paid',
    });
    // Paid late: an expired payment whose deposit is being confirmed.
    expect(checkoutStateOf({ status: 'expired', deposits: [aDeposit('d1', '25')] })).toBe('seen');
    expect(checkoutStateOf({ status: 'expired', deposits: [aDeposit('d1', '25', { status: 'wrong_currency' })] })).toBe('expired');
  });
});

describe('payment URIs', () => {
  it('are EIP-681 on EVM networks (token transfer, native value) and the plain address on TRON', () => {
    expect(paymentUri(CURRENCIES.USDTERC20, 1, TOKEN, DEPOSIT, 25_002_223n)).toBe(`ethereum:${TOKEN}@1/transfer?address=${DEPOSIT}&uint256=25002223`);
    expect(paymentUri(CURRENCIES.USDTBSC, 56, TOKEN, DEPOSIT, 10n ** 18n)).toBe(`ethereum:${TOKEN}@56/transfer?address=${DEPOSIT}&uint256=1000000000000000000`);
    expect(paymentUri(CURRENCIES.ETH, 1, null, DEPOSIT, 8_333_340_000_000_000n)).toBe(`ethereum:${DEPOSIT}@1?value=8333340000000000`);
    expect(paymentUri(CURRENCIES.USDTTRC20, null, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'TLCuBEirVzB6V4menLZKw1jfBTFMZbuKq7', 1n)).toBe(
      'TLCuBEirVzB6V4menLZKw1jfBTFMZbuKq7',
    );
    // A token without a known contract: the address alone (never a URI naming the wrong contract).
    expect(paymentUri(CURRENCIES.USDTERC20, 1, null, DEPOSIT, 1n)).toBe(DEPOSIT);
  });

  it('name the token standard of the network', () => {
    expect([NETWORKS.ETH, NETWORKS.BSC, NETWORKS.POLYGON, NETWORKS.TRX, NETWORKS.SOL, NETWORKS.BTC].map(tokenStandard)).toEqual([
      'ERC-20',
      'BEP-20',
      'ERC-20',
      'TRC-20',
      'SPL',
      null,
    ]);
  });
});

describe('the checkout view', () => {
  it('asks for the whole amount while waiting, the rest after a partial deposit, nothing once paid or closed', () => {
    const waiting = checkoutView(aPayment({ amountCrypto: '25.002223' }), ctx);
    expect([waiting.state, waiting.amount, waiting.paid, waiting.due]).toEqual(['waiting', '25.002223', '0.000000', '25.002223']);
    expect(waiting.paymentUri).toBe(`ethereum:${TOKEN}@1/transfer?address=0xabc&uint256=25002223`);

    const partial = checkoutView(
      aPayment({ amountCrypto: '25.002223', status: 'partially_paid', deposits: [aDeposit('d1', '10', { status: 'confirmed' })] }),
      ctx,
    );
    expect([partial.state, partial.paid, partial.due, partial.paymentUri]).toEqual([
      'partially_paid',
      '10.000000',
      '15.002223',
      `ethereum:${TOKEN}@1/transfer?address=0xabc&uint256=15002223`,
    ]);

    const seen = checkoutView(aPayment({ status: 'confirming', deposits: [aDeposit('d1', '25', { confirmations: 3 })] }), ctx);
    expect([seen.state, seen.due, seen.paymentUri, seen.confirmations, seen.confirmationsRequired]).toEqual(['seen', '0.000000', null, 3, 12]);

    for (const status of ['completed', 'cancelled', 'expired'] as const) {
      const v = checkoutView(aPayment({ status, deposits: status === 'completed' ? [aDeposit('d1', '25', { status: 'confirmed' })] : [] }), ctx);
      expect([v.due, v.paymentUri]).toEqual(['0.000000', null]);
    }
  });

  it('offers success_url once paid and cancel_url until then', () => {
    const urls = { successUrl: 'https://shop.example.com/thanks', cancelUrl: 'https://shop.example.com/cart' };
    const open = checkoutView(aPayment(urls), ctx);
    const paid = checkoutView(aPayment({ ...urls, status: 'completed', deposits: [aDeposit('d1', '25', { status: 'confirmed' })] }), ctx);
    expect([open.successUrl, open.cancelUrl, paid.successUrl, paid.cancelUrl]).toEqual([null, urls.cancelUrl, urls.successUrl, null]);
  });
});

describe('languages', () => {
  it.each([
    [undefined, undefined, 'en'],
    ['de-DE,de;q=0.9,en;q=0.8', undefined, 'de'],
    ['fr-CH, fr;q=0.9, es;q=0.8, de;q=0.7', undefined, 'es'],
    ['en;q=0.5, de;q=0.6', undefined, 'de'],
    ['de;q=0, es', undefined, 'es'],
    ['ja, zh', undefined, 'en'],
    ['de', 'es', 'es'],
    ['de', 'ES-mx', 'es'],
    ['de', 'fr', 'de'],
  ])('Accept-Language %s with ?lang=%s speaks %s', (header, override, locale) => {
    expect(negotiate(header, override)).toBe(locale);
  });

  it('has every text in every language, each different from English where the languages differ', () => {
    const keys = Object.keys(MESSAGES.en).sort();
    for (const locale of LOCALES) expect(Object.keys(MESSAGES[locale]).sort()).toEqual(keys);
    expect(MESSAGES.de.waiting).not.toBe(MESSAGES.en.waiting);
    expect(MESSAGES.es.paid).not.toBe(MESSAGES.en.paid);
  });

  it('formats amounts with every digit, as the locale writes them, and prices as money', () => {
    expect(formatAmount('1234567.12345678', 'de')).toBe('1.234.567,12345678');
    expect(formatAmount('1234567.12345678', 'en')).toBe('1,234,567.12345678');
    expect(formatAmount('0.00000001', 'es')).toBe('0,00000001');
    expect(formatAmount('25.000000', 'en')).toBe('25.000000');
    expect(formatPrice('25', 'USD', 'en')).toBe('$25.00');
    expect(formatPrice('25.1', 'EUR', 'de')).toBe('25,10\u00a0€');
  });
});

describe('the page', () => {
  it('allows its one script and its style by hash, and nothing else', () => {
    const hash = (text: string) => createHash('sha256').update(text).digest('base64');
    expect(CONTENT_SECURITY_POLICY).toContain(`script-src 'sha256-${hash(SCRIPT)}'`);
    expect(CONTENT_SECURITY_POLICY).toContain(`style-src 'sha256-${hash(STYLE)}'`);
    const html = checkoutPage({
      view: checkoutView(aPayment(), ctx),
      locale: 'en',
      statusUrl: '/checkout/x/status',
      qr: 'data:image/svg+xml;base64,AA==',
      now: new Date(),
    });
    // The inline blocks are exactly the hashed text (a byte more and the browser refuses them).
    expect(html).toContain(`<script>${SCRIPT}</script>`);
    expect(html).toContain(`<style>${STYLE}</style>`);
    expect(html).not.toMatch(/ style=| on[a-z]+=/);
  });

  it('escapes what merchants and customers wrote', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    const html = checkoutPage({
      view: checkoutView(aPayment({ orderDescription: '</title><script>alert(1)</script>', orderId: '"><img src=x>' }), {
        ...ctx,
        merchantName: '<b>Evil</b>',
      }),
      locale: 'de',
      statusUrl: '/checkout/x/status',
      qr: null,
      now: new Date(),
    });
    expect(html).not.toContain('<script>alert(1)');
    expect(html).not.toContain('<img src=x>');
    expect(html).not.toContain('<b>Evil</b>');
    expect(html).toContain('&lt;b&gt;Evil&lt;/b&gt; bezahlen');
  });
});

describe('the per-address limit', () => {
  it('allows a burst of the minute’s limit, then one request per 60/limit seconds, per address', () => {
    const limiter = clientRateLimiter(60);
    const t0 = 1_000_000;
    for (let i = 0; i < 60; i++) expect(limiter.take('a', t0)).toBe(0);
    expect(limiter.take('a', t0)).toBe(1);
    expect(limiter.take('b', t0)).toBe(0);
    expect(limiter.take('a', t0 + 1_000)).toBe(0);
    expect(limiter.take('a', t0 + 1_000)).toBe(1);
  });

  it('keeps at most its bound of addresses, forgetting the least recently seen', () => {
    const limiter = clientRateLimiter(1, 2);
    expect([limiter.take('a', 0), limiter.take('b', 0), limiter.take('a', 0)]).toEqual([0, 0, 60]);
    limiter.take('c', 0); // forgets b, the least recently seen
    expect([limiter.take('a', 0), limiter.take('b', 0)]).toEqual([60, 0]);
  });
});
