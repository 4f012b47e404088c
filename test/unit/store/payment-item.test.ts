import { deflateRawSync } from 'node:zlib';
import type { PaymentEventRef } from '../../../shared/domain/payment-events.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { packPayment, paymentFromItem, paymentWithEvents } from '../../../shared/store/payment-item.js';

/**
 * A payment item's packed state: the format byte, DEFLATE against a preset dictionary that can never change once
 * items were written with it (the stored bytes below were packed by format 1 and must read back forever), and the
 * forms stored before it.
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

const EVENTS = [
  {
    type: 'deposit_received',
    key: 'deposit:ETH:0x0b6230a4d91fc50fcc6d4b1199bee7da8dfa2eb592569c63f9566ba898432a9e:0:2',
    deposit: 'ETH:0x0b6230a4d91fc50fcc6d4b1199bee7da8dfa2eb592569c63f9566ba898432a9e:0',
  },
  { type: 'payment_status_update', key: 'status:2:confirming', status: 'confirming', previous: 'waiting' },
  { type: 'payment.processing', key: 'payment.processing:2', status: 'confirming', previous: 'waiting' },
] as unknown as PaymentEventRef[];

/** STATE and EVENTS as format 1 packed them. */
const STORED_FORMAT_1 =
  'AdWWPW8UMRCG/0v6Pc2M58OzHUE5UJoIKTSRKOyxXQQBDQUN/x1BhLR7e4HkOIRobY8ty+88jw9BYoXDWi4TWvDE5jG5DpmcQy1HqVz6GjaeMtfuNo0gmrijTc41T9KajeFsFeBvAInkSUgi2QFsufR9' +
  'GHNi2wBqOfNAKtiRAGb+HbEG9j02IchSLstlF9lT9LgakkbzPWmvL/pLS0uyEYjm7oiYc25MLVkJrGyjmXrSAhHgtRjAaFE8MWqWqFqb5sT9/yHj+xu6/cjXr99e2fXNpw/7V/f62d6cwEsC0glxIr1FmjnP' +
  'iDsHvjvSX1uULotxXbxE7HZZ2qHq3TH0XsAXqEoJCjfHEQIjQhtXRPfau7WS2yjUqziJemgaLqq1ZM+cqHi/eBzdf7r1DE+A/zLzKwv8CP7D+MIGZ7ju4zZBOdSJt+SUhneIgoqWR3GSUElsnHLxRmLqrQQl' +
  'BhCMIWiDjZEGB211hAc6+sVz/0tN0WmaOldwZloJ72x5fK44aV618/EmX+jt5yfqZIXSs0559/Ub';

describe('packed payment items', () => {
  it('reads what format 1 stored: its dictionary has not changed', () => {
    const item = { type: 'payment', packed: Buffer.from(STORED_FORMAT_1, 'base64') };
    expect(paymentFromItem(item)).toEqual(STATE);
    expect(paymentWithEvents(item)).toEqual({ state: STATE, events: EVENTS });
  });

  it('packs a state and its events behind the format byte, and reads them back', () => {
    const packed = packPayment(STATE, EVENTS);
    expect(packed[0]).toBe(1);
    expect(paymentWithEvents({ type: 'payment', packed })).toEqual({ state: STATE, events: EVENTS });
    // No events: none read back.
    expect(paymentWithEvents({ type: 'payment', packed: packPayment(STATE, []) })).toEqual({ state: STATE, events: [] });
  });

  it('is far smaller than the state and its events deflated without the dictionary', () => {
    const plain = deflateRawSync(Buffer.from(JSON.stringify({ state: STATE, events: EVENTS })), { level: 9 }).length;
    const packed = packPayment(STATE, EVENTS).length;
    expect(plain).toBeGreaterThan(750);
    expect(packed).toBeLessThan(450);
  });

  it('still reads the forms stored before: plain DEFLATE or JSON text beside the events', () => {
    const deflated = { type: 'payment', state: deflateRawSync(Buffer.from(JSON.stringify(STATE))), events: EVENTS };
    expect(paymentWithEvents(deflated)).toEqual({ state: STATE, events: EVENTS });
    expect(paymentFromItem({ type: 'payment', state: JSON.stringify(STATE) })).toEqual(STATE);
  });

  it('refuses another item, and a format it does not know', () => {
    expect(paymentWithEvents({ type: 'withdrawal', state: JSON.stringify(STATE) })).toBeNull();
    const unknown = Buffer.from(packPayment(STATE, []));
    unknown[0] = 2;
    expect(() => paymentFromItem({ type: 'payment', packed: unknown })).toThrow('Unknown packed payment format 2');
    expect(() => paymentFromItem({ type: 'wallet', packed: packPayment(STATE, []) })).toThrow('Not a payment item');
  });
});
