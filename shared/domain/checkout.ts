import { bip21Uri } from './bitcoin.js';
import type { CurrencyDefinition, NetworkDefinition } from './currencies.js';
import { NETWORKS } from './currencies.js';
import type { Decimal } from './money.js';
import { isPositive, sub, toBaseUnits, toFixed } from './money.js';
import type { PaymentState } from './payments.js';
import { confirmationsOf, counts, received } from './payments.js';

/**
 * The hosted checkout page, pure: what a customer paying a payment may see of it (never the tenant, the
 * callback URL or webhook data), the state the page shows, and the payment URI its QR code and "Pay in wallet"
 * link carry. The checkout Lambda reads the payment and renders this view; the status endpoint returns it.
 */

/** 128 random bits, base64url: the only name of a payment the public pages know. */
export const CHECKOUT_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * What the page shows, from the payment's status and deposits:
 * - `waiting`: nothing arrived yet;
 * - `seen`: a deposit is on chain, counting confirmations (`confirming`, or an expired payment paid late);
 * - `partially_paid`: less than the amount arrived; `amountDue` is the rest, to the same address;
 * - `paid`: confirmed, being swept, or completed;
 * - `expired`, `cancelled`, `failed`: closed, nothing more to pay.
 */
export const CHECKOUT_STATES = ['waiting', 'seen', 'partially_paid', 'paid', 'expired', 'cancelled', 'failed'] as const;
export type CheckoutState = (typeof CHECKOUT_STATES)[number];

export const isClosed = (s: CheckoutState): boolean => s === 'expired' || s === 'cancelled' || s === 'failed';
/** Whether money sent now still counts towards the payment (a deposit being confirmed may be short of the amount). */
export const isPayable = (s: CheckoutState): boolean => s === 'waiting' || s === 'seen' || s === 'partially_paid';

export function checkoutStateOf(p: Pick<PaymentState, 'status' | 'deposits'>): CheckoutState {
  switch (p.status) {
    case 'waiting':
      return 'waiting';
    case 'confirming':
      return 'seen';
    case 'partially_paid':
      return 'partially_paid';
    case 'confirmed':
    case 'sending':
    case 'completed':
      return 'paid';
    case 'expired':
      // Paid late: a deposit that still counts is being confirmed; the payment moves on from there.
      return p.deposits.some((d) => counts(d) && d.status === 'pending') ? 'seen' : 'expired';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
      return 'failed';
  }
}

/** The token standard of a network's tokens, as wallets and explorers name it. */
export function tokenStandard(network: NetworkDefinition): string | null {
  switch (network.family) {
    case 'evm':
      return network.code === 'BSC' ? 'BEP-20' : 'ERC-20';
    case 'tron':
      return 'TRC-20';
    case 'sol':
      return 'SPL';
    case 'btc':
      return null;
  }
}

/**
 * A URI wallets open to pay `units` (base units) of `currency` to `address`: EIP-681 on EVM networks
 * (`ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<units>`, a native coin `ethereum:<to>@<chainId>?value=<wei>`),
 * BIP21 on Bitcoin (`bitcoin:<address>?amount=<BTC>`), the plain address elsewhere (TRON wallets take no amount in a URI).
 */
export function paymentUri(currency: CurrencyDefinition, chainId: number | null, tokenContract: string | null, address: string, units: bigint): string {
  if (currency.family === 'btc') return bip21Uri(address, units);
  if (currency.family !== 'evm' || chainId === null) return address;
  if (currency.native) return `ethereum:${address}@${chainId}?value=${units}`;
  if (!tokenContract) return address;
  return `ethereum:${tokenContract}@${chainId}/transfer?address=${address}&uint256=${units}`;
}

export interface CheckoutView {
  readonly state: CheckoutState;
  readonly merchantName: string;
  readonly orderDescription: string | null;
  readonly orderId: string | null;
  readonly priceAmount: Decimal;
  readonly priceCurrency: string;
  /** The currency code, its token symbol, network name and token standard ("USDT", "Ethereum", "ERC-20"). */
  readonly currency: string;
  readonly token: string;
  readonly networkName: string;
  readonly standard: string | null;
  /** What the payment asks for, what arrived and what is still due, at the currency's display precision. */
  readonly amount: Decimal;
  readonly paid: Decimal;
  readonly due: Decimal;
  readonly address: string;
  /** For what is due; null once nothing is. */
  readonly paymentUri: string | null;
  readonly confirmations: number;
  readonly confirmationsRequired: number;
  readonly expiryTime: string;
  /** Where the customer goes back to: `successUrl` once paid, `cancelUrl` otherwise. */
  readonly successUrl: string | null;
  readonly cancelUrl: string | null;
}

export interface CheckoutContext {
  readonly merchantName: string;
  readonly currency: CurrencyDefinition;
  readonly chainId: number | null;
  readonly tokenContract: string | null;
  readonly confirmationsRequired: number;
}

export function checkoutView(p: PaymentState, ctx: CheckoutContext): CheckoutView {
  const state = checkoutStateOf(p);
  const precision = ctx.currency.displayPrecision;
  const paid = received(p);
  const rest = sub(p.amountCrypto, paid);
  // What is still due, at the display precision (rounded up: paying it completes the payment).
  const due = toFixed(isPositive(rest) && isPayable(state) ? rest : '0', precision, 'up');
  const network = NETWORKS[ctx.currency.network];
  return {
    state,
    merchantName: ctx.merchantName,
    orderDescription: p.orderDescription,
    orderId: p.orderId,
    priceAmount: p.priceAmount,
    priceCurrency: p.priceCurrency,
    currency: p.currency,
    token: p.token,
    networkName: network.name,
    standard: ctx.currency.native ? null : tokenStandard(network),
    amount: toFixed(p.amountCrypto, precision, 'up'),
    paid: toFixed(paid, precision, 'down'),
    due,
    address: p.address,
    paymentUri: isPositive(due) ? paymentUri(ctx.currency, ctx.chainId, ctx.tokenContract, p.address, toBaseUnits(due, p.decimals)) : null,
    confirmations: confirmationsOf(p),
    confirmationsRequired: ctx.confirmationsRequired,
    expiryTime: p.expiryTime,
    successUrl: state === 'paid' ? p.successUrl : null,
    cancelUrl: state === 'paid' ? null : p.cancelUrl,
  };
}

/** The hosted checkout page of a payment (its `checkout_id`) on `origin`, the API's host. */
export const checkoutUrl = (origin: string, checkoutId: string): string => `${origin.replace(/\/$/, '')}/checkout/${checkoutId}`;
