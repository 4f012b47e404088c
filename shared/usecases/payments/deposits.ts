import type { CurrencyDefinition } from '../../domain/currencies.js';
import { findCurrency, NETWORKS } from '../../domain/currencies.js';
import { ConflictError } from '../../domain/errors.js';
import { fromBaseUnits } from '../../domain/money.js';
import type { Deposit, PaymentChange, PaymentFact, PaymentState } from '../../domain/payments.js';
import { quote } from '../../domain/payment-quote.js';
import {
  andThen,
  counts,
  countsConfirmations,
  DepositAlreadyRecordedError,
  isConfirmedDeposit,
  isMined,
  isPartiallyPaid,
  isSweepDue,
  isSweeping,
  lateness,
  transition,
  UNMINED_BLOCK,
  workQueueOf,
} from '../../domain/payments.js';
import type { UsdRates } from '../../domain/rates.js';
import type { BlockReader, MempoolOutput, MempoolReader, NativeCoinReader, TokenTransfer, TxPlace } from '../deposits/ports.js';
import { currentRates, usdRatesOf } from '../rates/current-rates.js';
import type { PaymentsDeps } from './ports.js';
import type { DueSweep, SweepDeps } from './settle.js';
import { strandedSweeps, sweepDue } from './settle.js';

/**
 * Deposits applied to payments, for the chain scanner's pass (shared/usecases/scanner/scan.ts): it knows no chain,
 * only the deposits the pass found (`TokenTransfer`s matched to a payment's address), the blocks it can re-check
 * (`BlockReader`) and, for a network whose coin transfers leave no event, its `NativeCoinReader`.
 *
 * - each deposit is recorded once (its id `<network>:<tx>:<log index>`; the store refuses it twice), late or
 *   uncredited after the payment's expiry, `wrong_currency` when another token reached the address;
 * - the native coin, for payments waiting in it: the range's top-level transfers to them, then a balance check at
 *   the range's end (coins sent by contracts);
 * - a UTXO network's mempool (`MempoolReader`), for the payments waiting there: an output paying one is recorded
 *   "seen" (no block: `UNMINED_BLOCK`, 0 confirmations, its BIP125 `replaceable` signal kept); found later in a block
 *   (the same id: `<network>:<txid>:<vout>`), it is updated in place (`deposit_mined`), never recorded twice; one whose
 *   transaction left the mempool without a block (replaced or evicted) is dropped as a reorg drops one;
 * - after a reorganisation, deposits whose block is gone are dropped (the payment goes back);
 * - open payments: confirmations counted (each deposit's block hash re-checked); the payments confirmed are swept
 *   together, one factory call per currency (settle.ts), each saved once: a payment that reaches `confirmed` in
 *   this pass is saved `sending` with its new confirmations in one write.
 */
export type PaymentDepositDeps = Pick<PaymentsDeps, 'payments' | 'settings' | 'rates' | 'contracts' | 'clock'>;

interface PaymentKey {
  readonly tenantId: string;
  readonly paymentId: string;
}

/**
 * Applies a fact-producing change to a payment with retries on a concurrent change. Returns the payment as saved
 * (the pass settles it from this copy: no second read), or null when nothing was recorded.
 */
async function recordDeposit(key: PaymentKey, make: (p: PaymentState) => Deposit | null, now: Date, deps: PaymentDepositDeps): Promise<PaymentState | null> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const payment = await deps.payments.get(key.tenantId, key.paymentId);
    if (!payment) return null;
    const deposit = make(payment);
    if (!deposit) return null;
    const known = payment.deposits.find((d) => d.id === deposit.id);
    if (known) {
      // Seen in the mempool, now in a block: the same deposit, mined (a block's outputs re-read change nothing).
      if (isMined(known) || !isMined(deposit)) return null;
      const fact = { kind: 'deposit_mined', depositId: known.id, blockNumber: deposit.blockNumber, blockHash: deposit.blockHash } as const;
      try {
        return await deps.payments.save(payment, transition(payment, fact, now), now);
      } catch (error) {
        if (error instanceof ConflictError) continue;
        throw error;
      }
    }
    const late = lateness(payment, now, deps.settings.lateWatchHours);
    const adjusted: Deposit =
      !counts(deposit) || late === 'on_time' ? deposit : late === 'late' ? { ...deposit, late: true } : { ...deposit, late: true, status: 'uncredited' };
    try {
      return await deps.payments.save(payment, transition(payment, { kind: 'deposit', deposit: adjusted }, now), now);
    } catch (error) {
      if (error instanceof DepositAlreadyRecordedError) return null; // recorded before (another pass, a rescanned range)
      if (error instanceof ConflictError) continue;
      throw error;
    }
  }
  return null;
}

/** Confirmations of a deposit in block `blockNumber` at `head`: 0 for one not in a block yet (`UNMINED_BLOCK`). */
export const confirmationsAt = (head: number, blockNumber: number): number => (blockNumber < 0 ? 0 : Math.max(0, head - blockNumber + 1));

function depositOfTransfer(network: string, t: TokenTransfer, currency: CurrencyDefinition, payment: PaymentState, head: number, now: Date): Deposit {
  return {
    id: `${network}:${t.txHash}:${t.logIndex}`,
    currency: currency.code,
    amount: fromBaseUnits(t.value, currency.decimals),
    amountBase: t.value.toString(),
    txHash: t.txHash,
    logIndex: t.logIndex,
    blockNumber: t.blockNumber,
    blockHash: t.blockHash,
    confirmations: confirmationsAt(head, t.blockNumber),
    detectedAt: now.toISOString(),
    status: currency.code === payment.currency ? 'pending' : 'wrong_currency',
    late: false,
  };
}

/** A chain's blocks, and on a UTXO network its mempool (where a deposit seen unconfirmed is looked up again). */
export type DepositChain = BlockReader & { readonly mempool?: MempoolReader };

/**
 * Drops the deposits whose block is no longer on the chain; the payment goes back (waiting, or expired). A deposit
 * seen in the mempool is looked up there (`mempool.place`): in a block now, it is mined in place; gone (replaced or
 * evicted), it is dropped as a reorg drops one; still waiting, it stays. One save for all of it.
 */
export async function dropReorgedDeposits(payment: PaymentState, chain: DepositChain, now: Date, deps: PaymentDepositDeps): Promise<PaymentState> {
  const gone: string[] = [];
  const facts: PaymentFact[] = [];
  const hashes = new Map<number, string | null>();
  const places = new Map<string, TxPlace>();
  for (const d of payment.deposits) {
    if (isConfirmedDeposit(d) && !countsConfirmations(payment)) continue;
    if (!isMined(d)) {
      if (!chain.mempool) continue;
      if (!places.has(d.txHash)) places.set(d.txHash, await chain.mempool.place(d.txHash));
      const place = places.get(d.txHash) as TxPlace;
      if (place.state === 'gone') gone.push(d.id);
      if (place.state === 'confirmed') facts.push({ kind: 'deposit_mined', depositId: d.id, blockNumber: place.blockNumber, blockHash: place.blockHash });
      continue;
    }
    if (!hashes.has(d.blockNumber)) hashes.set(d.blockNumber, (await chain.block(d.blockNumber))?.hash ?? null);
    if (hashes.get(d.blockNumber) !== d.blockHash) gone.push(d.id);
  }
  if (gone.length > 0) facts.push({ kind: 'reorg', depositIds: gone });
  const [first, ...rest] = facts;
  if (!first) return payment;
  const change = rest.reduce<PaymentChange>((c, fact) => andThen(c, fact, now), transition(payment, first, now));
  return deps.payments.save(payment, change, now);
}

/**
 * After a reorganisation: the network's open payments lose the deposits of abandoned blocks (only payments with
 * counting deposits can lose one: those are open, confirming .. partially paid). Returns how many were dropped.
 */
export async function rewindPayments(network: string, blocks: DepositChain, now: Date, deps: PaymentDepositDeps): Promise<number> {
  let dropped = 0;
  for (const p of await deps.payments.open(network)) {
    const before = p.deposits.length;
    const after = await dropReorgedDeposits(p, blocks, now, deps);
    dropped += before - after.deposits.length;
  }
  return dropped;
}

/** One pass's deposits on a network's payments: what it recorded and the payments as it saved them. */
export interface PaymentPass {
  /** Deposits recorded by this pass. */
  readonly recorded: number;
  /** A catalogue token's transfer to the payment `match` names. */
  token(match: PaymentKey, transfer: TokenTransfer, currency: CurrencyDefinition): Promise<void>;
  /**
   * The native coin of the blocks [from, to] (`endHash`: block `to`'s hash) for the payments waiting in it;
   * `addressForm` is the form `native` reports addresses in.
   */
  native(native: NativeCoinReader, addressForm: (address: string) => string, range: { from: number; to: number; endHash: string }): Promise<void>;
  /**
   * A UTXO network's mempool, for the payments waiting in its coin and those partially paid: `pick` chooses which
   * of them this pass looks up (a budget per pass; it reads them with `list` when it needs, and leaves out those
   * `skip` names: recorded by this pass already). Returns how many lookups were made.
   */
  mempool(
    reader: MempoolReader,
    pick: (list: () => Promise<readonly PaymentState[]>, skip: (p: PaymentState) => boolean) => Promise<readonly PaymentState[]>,
  ): Promise<number>;
  /** Confirmations and settlement of the open payments (those of the open list and those this pass saved). */
  settle(blocks: DepositChain, deps: Pick<SweepDeps, 'sweep'>): Promise<number>;
}

/** A deposit seen in the mempool: no block, no confirmation, its replaceability kept. */
function depositOfMempool(network: string, o: MempoolOutput, currency: CurrencyDefinition, now: Date): Deposit {
  return {
    id: `${network}:${o.txHash}:${o.index}`,
    currency: currency.code,
    amount: fromBaseUnits(o.value, currency.decimals),
    amountBase: o.value.toString(),
    txHash: o.txHash,
    logIndex: o.index,
    blockNumber: UNMINED_BLOCK,
    blockHash: '',
    confirmations: 0,
    detectedAt: now.toISOString(),
    status: 'pending',
    late: false,
    replaceable: o.replaceable,
  };
}

export function paymentPass(network: string, head: number, now: Date, deps: PaymentDepositDeps): PaymentPass {
  let recorded = 0;
  // Payments this pass recorded a deposit of, as saved: fresher than the open list's copies.
  const saved = new Map<string, PaymentState>();
  let openList: Promise<PaymentState[]> | undefined;
  const open = (): Promise<PaymentState[]> => (openList ??= deps.payments.open(network));
  const nativeCurrency = findCurrency(NETWORKS[network as keyof typeof NETWORKS]?.nativeCurrency ?? '');
  /** Payments waiting in the network's coin, and those of its coin partially paid (the rest may still come). */
  const awaitingNative = async (): Promise<PaymentState[]> => {
    if (!nativeCurrency) return [];
    const listed = await open();
    return [...(await deps.payments.waitingNative(network)), ...listed.filter((p) => isPartiallyPaid(p) && p.currency === nativeCurrency.code)];
  };
  const record = async (key: PaymentKey, make: (p: PaymentState) => Deposit | null): Promise<void> => {
    const p = await recordDeposit(key, make, now, deps);
    if (!p) return;
    recorded++;
    saved.set(p.id, p);
  };
  return {
    get recorded() {
      return recorded;
    },
    token: (match, transfer, currency) => record(match, (p) => depositOfTransfer(network, transfer, currency, p, head, now)),

    async native(native, addressForm, { from, to, endHash }) {
      // The open list is read here, after the token deposits (as the settlement reads it).
      if (!nativeCurrency) return;
      const nativeWaiting = await awaitingNative();
      const nativeDeposit = (d: { id: string; value: bigint; txHash: string; blockNumber: number; blockHash: string }): Deposit => ({
        id: d.id,
        currency: nativeCurrency.code,
        amount: fromBaseUnits(d.value, nativeCurrency.decimals),
        amountBase: d.value.toString(),
        txHash: d.txHash,
        logIndex: -1,
        blockNumber: d.blockNumber,
        blockHash: d.blockHash,
        confirmations: confirmationsAt(head, d.blockNumber),
        detectedAt: now.toISOString(),
        status: 'pending',
        late: false,
      });
      // 1. Top-level transfers of the range (real tx hashes).
      const watched = new Map(nativeWaiting.map((p) => [addressForm(p.address), p]));
      for (const t of nativeWaiting.length > 0 ? await native.transfers(from, to) : []) {
        const p = watched.get(t.to);
        if (!p) continue;
        const deposit = nativeDeposit({
          id: `${network}:${t.txHash}:native`,
          value: t.value,
          txHash: t.txHash,
          blockNumber: t.blockNumber,
          blockHash: t.blockHash,
        });
        await record({ tenantId: p.tenantId, paymentId: p.id }, () => deposit);
      }
      // 2. A balance check at the range's end: coins sent by contracts (no log, no top-level transaction).
      if (!native.balance) return;
      for (const listedPayment of nativeWaiting) {
        const p = saved.get(listedPayment.id) ?? listedPayment;
        const balance = await native.balance(p.address, to);
        const known = p.deposits.filter(counts).reduce((sum, d) => sum + BigInt(d.amountBase), 0n);
        if (balance <= known) continue;
        const deposit = nativeDeposit({
          id: `${network}:native:${p.address.toLowerCase()}:${balance}`,
          value: balance - known,
          txHash: `internal@${to}`,
          blockNumber: to,
          blockHash: endHash,
        });
        await record({ tenantId: p.tenantId, paymentId: p.id }, () => deposit);
      }
    },

    async mempool(reader, pick) {
      if (!nativeCurrency) return 0;
      const chosen = await pick(awaitingNative, (p) => saved.has(p.id));
      for (const p of chosen) {
        const address = p.address.toLowerCase();
        for (const o of await reader.incoming(p.address)) {
          if (o.to.toLowerCase() !== address || o.value <= 0n) continue;
          await record({ tenantId: p.tenantId, paymentId: p.id }, () => depositOfMempool(network, o, nativeCurrency, now));
        }
      }
      return chosen.length;
    },

    async settle(blocks, sweep) {
      // Those listed, and the ones this pass saved as saved (a deposit it recorded may have just opened them).
      const listed = await open();
      const current = [...listed.filter((p) => !saved.has(p.id)), ...[...saved.values()].filter((p) => workQueueOf(p)?.kind === 'open')];
      return followOpenPayments(current, head, blocks, { ...deps, ...sweep }, now);
    },
  };
}

/** A write refused because the copy it started from is behind: null, for the next pass. */
async function behindIsLater(write: Promise<PaymentState>): Promise<PaymentState | null> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof ConflictError) return null;
    throw error;
  }
}

/**
 * Settles the open payments from the copies the pass holds (the open list, eventually consistent, or a save of
 * this pass): every write is conditioned on the version, so a copy that is behind is refused (ConflictError)
 * and the payment is seen again by the next pass, while the usual pass reads no payment twice. Returns how many
 * completed at once.
 */
export async function followOpenPayments(
  open: readonly PaymentState[],
  head: number,
  blocks: DepositChain,
  deps: PaymentDepositDeps & Pick<SweepDeps, 'sweep'>,
  now: Date,
): Promise<number> {
  if (open.length === 0) return 0;
  let rates: UsdRates | undefined;
  const due: DueSweep[] = [];
  const sending: PaymentState[] = [];
  for (const listed of open) {
    let payment = listed;
    const currency = findCurrency(payment.currency);
    if (!currency) continue;
    if (countsConfirmations(payment)) {
      const before = payment.deposits.length;
      const kept = await behindIsLater(dropReorgedDeposits(payment, blocks, now, deps));
      if (!kept || kept.deposits.length !== before) continue;
      payment = kept;
      const byDeposit = Object.fromEntries(payment.deposits.map((d) => [d.id, confirmationsAt(head, d.blockNumber)]));
      const repriced = payment.isFixedRate
        ? undefined
        : quote({
            price: payment.priceAmount,
            priceCurrency: payment.priceCurrency,
            currency,
            rates: (rates ??= usdRatesOf(await currentRates(deps.rates, now))),
            feePercent: payment.feePercent,
            isFeePaidByUser: payment.isFeePaidByUser,
          }).amountCrypto;
      const t = transition(
        payment,
        {
          kind: 'confirmations',
          byDeposit,
          confirmationsNeeded: deps.settings.confirmationsFor(currency),
          tolerancePercent: deps.settings.underpaymentTolerancePercent,
          ...(repriced ? { repriced } : {}),
        },
        now,
      );
      // Confirmed now: saved with its sweep, in one write.
      if (isSweepDue(t.state)) {
        due.push({ payment, confirmed: t });
        continue;
      }
      // A pass without a new block changes nothing: no write (each save is a transaction with the outbox).
      const changed =
        t.events.length > 0 ||
        t.state.status !== payment.status ||
        t.state.deposits.some((d, i) => d.confirmations !== payment.deposits[i]?.confirmations || d.status !== payment.deposits[i]?.status);
      if (changed) {
        const next = await behindIsLater(deps.payments.save(payment, t, now));
        if (!next) continue;
        payment = next;
      }
    }
    if (isSweepDue(payment)) due.push({ payment });
    else if (isSweeping(payment)) sending.push(payment);
  }
  // A batch whose pass died before its request (or whose request was cancelled) gives its payments back.
  due.push(...(await strandedSweeps(sending, deps, now)));
  return due.length === 0 ? 0 : sweepDue(due, deps, now);
}
