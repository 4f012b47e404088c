import { checkoutPage } from '../../../functions/checkout/page.js';
import { bip21Uri } from '../../../shared/domain/bitcoin.js';
import type { CheckoutContext } from '../../../shared/domain/checkout.js';
import { checkoutView, paymentUri } from '../../../shared/domain/checkout.js';
import { CURRENCIES } from '../../../shared/domain/currencies.js';
import { aDeposit, aPayment } from '../../support/fixtures/payments.js';

/** A Bitcoin payment's QR and wallet link carry a BIP21 URI: `bitcoin:<address>?amount=<BTC>`; the page says "Bitcoin". */

const ADDRESS = 'bcrt1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q8r4ysp';
const ctx: CheckoutContext = { merchantName: 'Acme', currency: CURRENCIES.BTC, chainId: null, tokenContract: null, confirmationsRequired: 2 };
const btcDeposit = (id: string, amount: string, sats: number) => ({
  ...aDeposit(id, '0', { status: 'confirmed' }),
  currency: 'BTC' as const,
  amount,
  amountBase: String(sats),
});
const btcPayment = (over: Parameters<typeof aPayment>[0] = {}) =>
  aPayment({ currency: 'BTC', network: 'BTC', token: 'BTC', decimals: 8, address: ADDRESS, amountCrypto: '0.00012345', ...over });

describe('BIP21 URIs', () => {
  it('carry the amount in BTC as a decimal without trailing zeros, and the address as given', () => {
    expect([100_000_000n, 12_345n, 10_000n, 1n, 150_000_000n, 2_100_000_000_000_000n, 12_345_678n].map((sats) => bip21Uri('bc1qexample', sats))).toEqual([
      'bitcoin:bc1qexample?amount=1',
      'bitcoin:bc1qexample?amount=0.00012345',
      'bitcoin:bc1qexample?amount=0.0001',
      'bitcoin:bc1qexample?amount=0.00000001',
      'bitcoin:bc1qexample?amount=1.5',
      'bitcoin:bc1qexample?amount=21000000',
      'bitcoin:bc1qexample?amount=0.12345678',
    ]);
    expect(paymentUri(CURRENCIES.BTC, null, null, ADDRESS, 50_000n)).toBe(`bitcoin:${ADDRESS}?amount=0.0005`);
    expect(paymentUri(CURRENCIES.BTC, null, null, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 1n)).toBe(
      'bitcoin:1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa?amount=0.00000001',
    );
  });

  it("are what a BTC payment's checkout view asks for: the whole amount, then the rest, then nothing", () => {
    const waiting = checkoutView(btcPayment(), ctx);
    expect([waiting.amount, waiting.due, waiting.paymentUri, waiting.networkName, waiting.standard]).toEqual([
      '0.00012345',
      '0.00012345',
      `bitcoin:${ADDRESS}?amount=0.00012345`,
      'Bitcoin',
      null,
    ]);
    const partial = checkoutView(btcPayment({ status: 'partially_paid', deposits: [btcDeposit('d1', '0.0001', 10_000)] }), ctx);
    expect([partial.paid, partial.due, partial.paymentUri]).toEqual(['0.00010000', '0.00002345', `bitcoin:${ADDRESS}?amount=0.00002345`]);
    const paid = checkoutView(btcPayment({ status: 'completed', deposits: [btcDeposit('d1', '0.00012345', 12_345)] }), ctx);
    expect(paid.paymentUri).toBeNull();
  });

  it('are the wallet link of the page, which names the network Bitcoin', () => {
    const html = checkoutPage({
      view: checkoutView(btcPayment(), ctx),
      locale: 'en',
      statusUrl: '/checkout/x/status',
      qr: 'data:image/svg+xml;base64,AA==',
      now: new Date(),
    });
    expect(html).toContain(`id="wallet-link" class="button wallet" href="bitcoin:${ADDRESS}?amount=0.00012345"`);
    expect(html).toContain('BTC on Bitcoin');
    expect(html).toContain(ADDRESS);
  });
});
