import type { CurrencyCode } from '../../domain/currencies.js';
import { findCurrency } from '../../domain/currencies.js';
import type { Leg } from '../../domain/ledger.js';
import { EXTERNAL, FEES, MAIN, pocket, walletAccount } from '../../domain/ledger.js';
import { isPositive } from '../../domain/money.js';
import type { PaymentState } from '../../domain/payments.js';
import { merchantCredit, received, transition } from '../../domain/payments.js';
import { usdRate } from '../../domain/rates.js';
import { postEntry } from '../../store/ledger.js';
import { getPayment, paymentOutbox, savePayment, savePaymentItem } from '../../store/payments.js';
import { tokenContract } from '../currencies/runtime.js';
import { currentRates, usdRatesOf } from '../rates/current-rates.js';
import type { PaymentsDeps } from './deps.js';

/**
 * From `confirmed` to `completed`: the payment moves to `sending` (the deposit is forwarded to the treasury
 * through the factory), then, once the sweep is mined, to `completed` while the merchant's balance (main, or
 * the wallet_id sub-account) is credited net of the platform fee, in ONE transaction with the payment's new
 * state and its events.
 *
 * Sweeping sits behind a port: the chain-transaction engine (nonce manager, KMS signing, receipts) when it
 * exists, or a direct factory call with the hot-wallet signer (tests, local).
 */
export interface SweepRequest {
  readonly reference: string;
  readonly network: string;
  readonly currency: string;
  /** Token contract; null for the native coin. */
  readonly token: string | null;
  readonly salts: readonly string[];
}

export type SweepOutcome = { readonly status: 'submitted' } | { readonly status: 'done'; readonly txHash: string };

export interface SweepPort {
  requestSweep(request: SweepRequest): Promise<SweepOutcome>;
}

export const sweepReference = (p: Pick<PaymentState, 'tenantId' | 'id'>): string => `payment:${p.tenantId}:${p.id}`;

/** `confirmed` -> `sending`, then asks for the sweep; completes at once when the port answers `done`. */
export async function startSweep(payment: PaymentState, sweep: SweepPort, deps: PaymentsDeps, now: Date): Promise<PaymentState> {
  const t = transition(payment, { kind: 'sweep_started' }, now);
  const sending = await savePayment(payment, t.payment, t.events, now);
  const currency = findCurrency(sending.currency);
  const outcome = await sweep.requestSweep({
    reference: sweepReference(sending),
    network: sending.network,
    currency: sending.currency,
    token: currency && !currency.native ? tokenContract(currency) : null,
    salts: [sending.salt],
  });
  if (outcome.status === 'submitted') return sending;
  return completePayment(sending, outcome.txHash, deps, new Date(Math.max(now.getTime(), Date.now())));
}

/** The sweep is mined: `sending` -> `completed`, merchant credited, in one transaction. Idempotent by entry id. */
export async function completePayment(payment: PaymentState, sweepTxHash: string, deps: PaymentsDeps, now: Date): Promise<PaymentState> {
  const rates = usdRatesOf(await currentRates(deps.rates, now));
  const t = transition(payment, { kind: 'sweep_completed', txHash: sweepTxHash, usdRate: usdRate(payment.currency, rates) ?? null }, now);
  const saved: PaymentState = { ...t.payment, version: payment.version + 1 };
  const { net, fee } = merchantCredit(payment, received(payment, 'confirmed'));
  const account = payment.walletId ? walletAccount(payment.walletId) : MAIN;
  const legs: Leg[] = [];
  if (isPositive(net)) legs.push({ from: pocket(EXTERNAL), to: pocket(account), amount: net });
  if (isPositive(fee)) legs.push({ from: pocket(EXTERNAL), to: pocket(FEES), amount: fee });
  const outbox = paymentOutbox(saved, t.events, now);
  const paymentItem = savePaymentItem(saved, payment.version);
  if (legs.length === 0) return savePayment(payment, t.payment, t.events, now);
  await postEntry({
    tenantId: payment.tenantId,
    entryId: `payment:${payment.id}`,
    now,
    entry: {
      type: 'payment',
      currency: payment.currency as CurrencyCode,
      legs,
      reference: { kind: 'payment', id: payment.id },
      metadata: { sweep_tx: sweepTxHash, ...(payment.transactionHash ? { deposit_tx: payment.transactionHash } : {}) },
    },
    outbox,
    extraItems: [paymentItem],
  });
  return saved;
}

/** For the chain-tx engine's `chain_tx.confirmed` / `chain_tx.failed` events carrying a sweep reference. */
export async function onSweepResult(reference: string, result: { ok: true; txHash: string } | { ok: false }, deps: PaymentsDeps, now: Date): Promise<PaymentState | null> {
  const m = /^payment:([^:]+):([^:]+)$/.exec(reference);
  if (!m) return null;
  const payment = await getPayment(m[1] ?? '', m[2] ?? '');
  if (!payment || payment.status !== 'sending') return payment;
  if (result.ok) return completePayment(payment, result.txHash, deps, now);
  const t = transition(payment, { kind: 'sweep_failed' }, now);
  return savePayment(payment, t.payment, t.events, now);
}
