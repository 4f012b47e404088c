import { deflateRawSync } from 'node:zlib';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { packState, stateAttributes, stateOf } from '../../../shared/store/aggregate.js';
import { paymentFromItem, paymentStateAttributes } from '../../../shared/store/payment-item.js';

/**
 * The one storage format of every aggregate (shared/store/aggregate.ts): `state` is a format byte, then the raw
 * DEFLATE of the state's JSON, against the type's preset dictionary for format 1. A dictionary can never change
 * once items were written with it: the payment's stored bytes below were packed by format 1 and must read back
 * forever.
 */
const STATE = {
  id: '7a4c7d8a-17c4-479c-96f5-94c678cab4ae',
  tenantId: '9384be97-fc22-4e17-94b8-5dd7ff947b00',
  currency: 'USDTERC20',
  network: 'ETH',
  token: 'USDT',
  decimals: 6,
  priceAmount: '25',
  priceCurrency: 'USD',
  amountUsd: '25.00',
  amountCrypto: '25.018347',
  priceCrypto: '25.018347',
  fee: '0.250184',
  feePercent: '1',
  address: '0xf1eF1d52085aBaBe55F2cecEf53fd9F26ebAeC73',
  salt: '0x20568e9111888d42d37ac1b47fd76936a0cc09ba700fdca9341685cb6bd6834e',
  isFixedRate: true,
  isFeePaidByUser: false,
  orderId: null,
  orderDescription: null,
  callbackUrl: null,
  customId: null,
  walletId: null,
  customerEmail: null,
  checkoutId: 'kO2Tn4JHUE7JOomFGj6t7Q',
  successUrl: null,
  cancelUrl: null,
  expiryTime: '2026-11-26T12:48:11.904Z',
  status: 'confirming',
  createdAt: '2026-11-26T11:48:11.904Z',
  updatedAt: '2026-11-26T11:48:13.166Z',
  transactionHash: '0x0b6230a4d91fc50fcc6d4b1199bee7da8dfa2eb592569c63f9566ba898432a9e',
  deposits: [
    {
      id: 'ETH:0x0b6230a4d91fc50fcc6d4b1199bee7da8dfa2eb592569c63f9566ba898432a9e:0',
      currency: 'USDTERC20',
      amount: '25.018347',
      amountBase: '25018347',
      txHash: '0x0b6230a4d91fc50fcc6d4b1199bee7da8dfa2eb592569c63f9566ba898432a9e',
      logIndex: 0,
      blockNumber: 15,
      blockHash: '0x9d3923f9e0ca16178fa925c65347438a9d25769dac2340051cf517f47412f4c2',
      confirmations: 1,
      detectedAt: '2026-11-26T11:48:13.166Z',
      status: 'pending',
      late: false,
    },
  ],
  flags: [],
  merchantReceived: null,
  merchantReceivedUsd: null,
  sweepTxHash: null,
  version: 2,
} as unknown as PaymentState;

/** STATE as the payment type's format 1 stored it. */
const STORED_PAYMENT =
  'AdXVPW/UMQwH4O/SPSfb8Ut8G0U9UJcKqSzdHCcZioCFgYXvjqAM/+txUPEixJrEkZL49+Tb9Vhw2mhR0JILm2dxXVKcU61ldI55nC2vjft0KyuJCk+04txbkTFsLWfrAH8jfyRPSiDJ' +
  'DuA0hl+GsVW2kzxuZx6CCTsSwMY/C+jCecAhBE3iMi6nyIFy5tWSuoYfSGd/Np9b3QaZQLRNR8TW2mAa1SKxs61h6lUDMsF7GMAaGV4ZtUl27UNb5fn/QPDmhm7f8fXL11d2ffP+7eHF' +
  'vX6wV7/AAwFpQSykt0h7bnvEnQPfnf05tnJsi/G4eCvK6bK6Q9W770lzAR+hK1UIHo4rBVamDu6I7n1OG9HGCppdnEQ9tS4X1R7NG1cKnxfnpfrdrffwBOu2PX+E3tfGfxjf4PcHjnse' +
  'T5THevqoTnX5hAxUtLbCSVKlsnFt4YPE1EckVQYQzCVoi42RFied6ouP9P3Bc/9LlenTZw==';

describe('the stored state of an aggregate', () => {
  it("reads what the payment type's format 1 stored: its dictionary has not changed", () => {
    expect(paymentFromItem({ type: 'payment', state: Buffer.from(STORED_PAYMENT, 'base64') })).toEqual(STATE);
  });

  it("packs a state behind its format byte, with the type's dictionary or without one, and reads it back", () => {
    const payment = paymentStateAttributes(STATE);
    expect([payment.type, payment.version, payment.state[0]]).toEqual(['payment', 2, 1]);
    expect(paymentFromItem(payment)).toEqual(STATE);
    const withdrawal = { id: 'w-1', amount: '0.10', version: 3 };
    const plain = stateAttributes('withdrawal', withdrawal);
    expect([plain.type, plain.version, plain.state[0]]).toEqual(['withdrawal', 3, 0]);
    expect(stateOf(plain, 'withdrawal')).toEqual(withdrawal);
  });

  it("is far smaller against the payment type's dictionary than deflated without it", () => {
    const plain = deflateRawSync(Buffer.from(JSON.stringify(STATE)), { level: 9 }).length;
    expect(plain).toBeGreaterThan(650);
    expect(paymentStateAttributes(STATE).state.length).toBeLessThan(400);
  });

  it('refuses another type, a format it does not know, a dictionary format read without the dictionary, and state as text', () => {
    const unknown = Buffer.from(packState(STATE));
    unknown[0] = 2;
    expect(() => paymentFromItem({ type: 'payment', state: unknown })).toThrow('Unknown packed format 2');
    expect(() => paymentFromItem({ type: 'wallet', state: packState(STATE) })).toThrow('Not a payment item');
    expect(() => stateOf(paymentStateAttributes(STATE), 'payment')).toThrow('no dictionary given');
    expect(() => paymentFromItem({ type: 'payment', state: JSON.stringify(STATE) })).toThrow('Not a payment item');
  });
});
