import { findCurrency } from '../../domain/currencies.js';
import type { PaymentState } from '../../domain/payments.js';
import { transition } from '../../domain/payments.js';
import { usdRate } from '../../domain/rates.js';
import { WalletGoneError } from '../../domain/wallets.js';
import { currentRates, usdRatesOf } from '../rates/current-rates.js';
import type { PaymentsDeps } from './ports.js';

/**
 * From `confirmed` to `completed`: the payment moves to `sending` (the deposit is forwarded to the treasury
 * through the factory), then, once the sweep is mined, to `completed` while the merchant's balance (main, or
 * the wallet_id sub-account) is credited net of the platform fee, in ONE transaction with the payment's new
 * state and its events (the `post_entry` effect of the payment's transition).
 *
 * Sweeping sits behind a port: the chain-transaction engine (nonce manager, KMS signing, receipts), or a direct
 * factory call with the hot-wallet signer (tests, local).
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

type SettleDeps = Pick<PaymentsDeps, 'payments' | 'rates' | 'contracts' | 'clock'>;

/** `confirmed` -> `sending`, then asks for the sweep; completes at once when the port answers `done`. */
export async function startSweep(payment: PaymentState, sweep: SweepPort, deps: SettleDeps, now: Date): Promise<PaymentState> {
  const sending = await deps.payments.save(payment, transition(payment, { kind: 'sweep_started' }, now), now);
  const currency = findCurrency(sending.currency);
  const outcome = await sweep.requestSweep({
    reference: sweepReference(sending),
    network: sending.network,
    currency: sending.currency,
    token: currency && !currency.native ? deps.contracts(currency) : null,
    salts: [sending.salt],
  });
  if (outcome.status === 'submitted') return sending;
  return completePayment(sending, outcome.txHash, deps, new Date(Math.max(now.getTime(), deps.clock.now().getTime())));
}

/**
 * The sweep is mined: `sending` -> `completed`, merchant credited, in one transaction. Idempotent by entry id. A
 * payment whose wallet was deleted meanwhile (the ledger refuses the credit: WalletGoneError) credits main.
 */
export async function completePayment(
  payment: PaymentState,
  sweepTxHash: string,
  deps: Pick<PaymentsDeps, 'payments' | 'rates'>,
  now: Date,
): Promise<PaymentState> {
  const rates = usdRatesOf(await currentRates(deps.rates, now));
  const fact = { kind: 'sweep_completed', txHash: sweepTxHash, usdRate: usdRate(payment.currency, rates) ?? null } as const;
  try {
    return await deps.payments.save(payment, transition(payment, fact, now), now);
  } catch (error) {
    if (!(error instanceof WalletGoneError)) throw error;
    return deps.payments.save(payment, transition(payment, { ...fact, walletGone: true }, now), now);
  }
}

/** For the chain-tx engine's `chain_tx.confirmed` / `chain_tx.failed` events carrying a sweep reference. */
export async function onSweepResult(
  reference: string,
  result: { ok: true; txHash: string } | { ok: false },
  deps: Pick<PaymentsDeps, 'payments' | 'rates'>,
  now: Date,
): Promise<PaymentState | null> {
  const m = /^payment:([^:]+):([^:]+)$/.exec(reference);
  if (!m) return null;
  const payment = await deps.payments.get(m[1] ?? '', m[2] ?? '');
  if (!payment || payment.status !== 'sending') return payment;
  if (result.ok) return completePayment(payment, result.txHash, deps, now);
  return deps.payments.save(payment, transition(payment, { kind: 'sweep_failed' }, now), now);
}
