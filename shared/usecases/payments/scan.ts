import type { EvmChainPort, TransferLog } from '../../chain/evm/scanner.js';
import { chainAddressForm } from '../../chain/address-form.js';
import type { CurrencyDefinition } from '../../domain/currencies.js';
import { findCurrency, NETWORKS } from '../../domain/currencies.js';
import { ConflictError } from '../../domain/errors.js';
import { fromBaseUnits } from '../../domain/money.js';
import type { Deposit, PaymentState } from '../../domain/payments.js';
import { counts, DepositAlreadyRecordedError, lateness, quote, transition, workQueueOf } from '../../domain/payments.js';
import type { UsdRates } from '../../domain/rates.js';
import { currentRates, usdRatesOf } from '../rates/current-rates.js';
import type { ScanCursor, ScannerDeps } from './ports.js';
import { payableCurrencies } from './resolve.js';
import type { DueSweep, SweepPort } from './settle.js';
import { strandedSweeps, sweepDue } from './settle.js';
import { followCustodyDeposits, recordCustodyDeposit } from '../custody/scan-deposits.js';

/**
 * One pass of a network's scanner (DESIGN sections 5 and 10):
 *
 * 1. reorg check: the last checkpoint's block must still have the recorded hash; otherwise rewind to the
 *    newest checkpoint that still matches and drop the deposits of the abandoned blocks (back to waiting);
 * 2. ONE eth_getLogs for the range's Transfer logs of the catalogue's token contracts (no address filter),
 *    `to` matched against deposit-address items in one BatchGetItem per 100 addresses, each deposit recorded
 *    once (conditional put of `network:tx:logIndex` in the same transaction as the payment's change);
 * 3. for payments waiting in the network's native coin (native transfers leave no log): the range's top-level
 *    transfers to them, then a balance check at the range's end (coins sent by contracts);
 * 4. the cursor advances with a conditional update;
 * 5. open payments: confirmations counted (each deposit's block hash re-checked); the payments confirmed are swept
 *    together, one factory call per currency (up to the port's `maxSalts` deposits), each saved once: a payment that
 *    reaches `confirmed` in this pass is saved `sending` with its new confirmations in one write (settle.ts).
 *
 * Cost grows with blocks and deposits, not with the number of watched addresses.
 */
export interface ScanDeps extends ScannerDeps {
  readonly chain: EvmChainPort;
  readonly sweep: SweepPort;
  /** Most blocks per eth_getLogs. */
  readonly maxRange?: number;
}

export interface ScanReport {
  readonly network: string;
  readonly from: number;
  readonly to: number;
  readonly logs: number;
  readonly recorded: number;
  readonly rewoundTo: number | null;
  readonly reorged: number;
  readonly settled: number;
}

/** Starts (or restarts) a network's cursor at `block` (the last block considered scanned). */
export async function initCursor(network: string, block: number, deps: Pick<ScanDeps, 'chain' | 'cursors'>): Promise<void> {
  const existing = await deps.cursors.get(network);
  const b = await deps.chain.block(block);
  const next: ScanCursor = { network, block, hashes: b ? [{ n: block, hash: b.hash }] : [] };
  if (!(await deps.cursors.move(network, existing?.block ?? null, next))) throw new ConflictError(`The ${network} cursor moved meanwhile.`);
}

const familyOf = (network: string): string => NETWORKS[network as keyof typeof NETWORKS]?.family ?? 'evm';

/** The network's catalogue tokens by contract, in the form the scanner port reports (EVM lowercase, TRON 0x-hex). */
function tokensOf(network: string, deps: ScannerDeps): Map<string, CurrencyDefinition> {
  const map = new Map<string, CurrencyDefinition>();
  for (const c of payableCurrencies(deps)) {
    if (c.network !== network || c.native) continue;
    const address = deps.contracts(c);
    if (address) map.set(chainAddressForm(c.family, address), c);
  }
  return map;
}

/**
 * Applies a fact-producing change to a payment with retries on a concurrent change. Returns the payment as saved
 * (the pass settles it from this copy: no second read), or null when nothing was recorded.
 */
async function recordDeposit(
  paymentKey: { tenantId: string; paymentId: string },
  make: (p: PaymentState) => Deposit | null,
  now: Date,
  deps: ScannerDeps,
): Promise<PaymentState | null> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const payment = await deps.payments.get(paymentKey.tenantId, paymentKey.paymentId);
    if (!payment) return null;
    const deposit = make(payment);
    if (!deposit || payment.deposits.some((d) => d.id === deposit.id)) return null;
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

function depositFromLog(network: string, log: TransferLog, currency: CurrencyDefinition, payment: PaymentState, head: number, now: Date): Deposit {
  return {
    id: `${network}:${log.txHash}:${log.logIndex}`,
    currency: currency.code,
    amount: fromBaseUnits(log.value, currency.decimals),
    amountBase: log.value.toString(),
    txHash: log.txHash,
    logIndex: log.logIndex,
    blockNumber: log.blockNumber,
    blockHash: log.blockHash,
    confirmations: Math.max(0, head - log.blockNumber + 1),
    detectedAt: now.toISOString(),
    status: currency.code === payment.currency ? 'pending' : 'wrong_currency',
    late: false,
  };
}

/** Drops the deposits whose block is no longer on the chain; the payment goes back (waiting, or expired). */
async function dropReorged(payment: PaymentState, chain: EvmChainPort, now: Date, deps: ScannerDeps): Promise<PaymentState> {
  const gone: string[] = [];
  const hashes = new Map<number, string | null>();
  for (const d of payment.deposits) {
    if (d.status === 'confirmed' && payment.status !== 'confirming' && payment.status !== 'partially_paid') continue;
    if (!hashes.has(d.blockNumber)) hashes.set(d.blockNumber, (await chain.block(d.blockNumber))?.hash ?? null);
    if (hashes.get(d.blockNumber) !== d.blockHash) gone.push(d.id);
  }
  if (gone.length === 0) return payment;
  return deps.payments.save(payment, transition(payment, { kind: 'reorg', depositIds: gone }, now), now);
}

export async function scanOnce(network: string, deps: ScanDeps): Promise<ScanReport> {
  const now = deps.clock.now();
  const { chain } = deps;
  const head = await chain.blockNumber();
  let cursor = await deps.cursors.get(network);
  if (!cursor) {
    await initCursor(network, head, deps);
    cursor = await deps.cursors.get(network);
    if (!cursor) throw new ConflictError(`The ${network} cursor could not be created.`);
  }
  let rewoundTo: number | null = null;
  let reorged = 0;

  // 1. Reorg check on the last checkpoint.
  const last = cursor.hashes[cursor.hashes.length - 1];
  if (last && last.n === cursor.block) {
    const current = await chain.block(last.n);
    if (!current || current.hash !== last.hash) {
      let ancestor: { n: number; hash: string } | undefined;
      for (const cp of [...cursor.hashes].reverse()) {
        if (cp.n > head) continue;
        const b = await chain.block(cp.n);
        if (b && b.hash === cp.hash) {
          ancestor = cp;
          break;
        }
      }
      rewoundTo = ancestor?.n ?? Math.max(0, Math.min(head, (cursor.hashes[0]?.n ?? cursor.block) - 1));
      // Only payments with counting deposits can lose one: those are open (confirming .. partially paid).
      for (const p of await deps.payments.open(network)) {
        const before = p.deposits.length;
        const after = await dropReorged(p, chain, now, deps);
        reorged += before - after.deposits.length;
      }
      const kept = cursor.hashes.filter((h) => h.n <= (rewoundTo as number));
      if (!(await deps.cursors.move(network, cursor.block, { network, block: rewoundTo, hashes: kept })))
        throw new ConflictError(`The ${network} cursor moved meanwhile.`);
      cursor = { network, block: rewoundTo, hashes: kept };
    }
  }

  // 2. Transfer logs of the range.
  const from = cursor.block + 1;
  const to = Math.min(head, from + (deps.maxRange ?? 500) - 1);
  let logs: TransferLog[] = [];
  let recorded = 0;
  // Payments this pass recorded a deposit of, as saved: fresher than the open list's copies.
  const saved = new Map<string, PaymentState>();
  const record = async (key: { tenantId: string; paymentId: string }, make: (p: PaymentState) => Deposit | null): Promise<void> => {
    const p = await recordDeposit(key, make, now, deps);
    if (!p) return;
    recorded++;
    saved.set(p.id, p);
  };
  if (from <= to) {
    const tokens = tokensOf(network, deps);
    logs = await chain.transferLogs(from, to, [...tokens.keys()]);
    const family = familyOf(network);
    const matches = await deps.payments.matchAddresses(
      family,
      logs.map((l) => chainAddressForm(family, l.to)),
    );
    const byAddress = new Map(matches.map((m) => [chainAddressForm(family, m.address), m]));
    for (const log of logs) {
      const match = byAddress.get(chainAddressForm(family, log.to));
      const currency = tokens.get(chainAddressForm(family, log.token));
      if (!match || !currency || log.value === 0n) continue;
      if (match.custodyAccountId !== undefined) {
        if (await recordCustodyDeposit(network, { ...match, custodyAccountId: match.custodyAccountId }, log, currency, head, now, deps)) recorded++;
        continue;
      }
      await record(match, (p) => depositFromLog(network, log, currency, p, head, now));
    }
  }

  // 3. Native coin, for payments waiting in it: top-level transfers of the range (real tx hashes), then a
  //    balance check at the range's end for coins sent by contracts (no log, no top-level transaction).
  const open = await deps.payments.open(network);
  const native = NETWORKS[network as keyof typeof NETWORKS]?.nativeCurrency;
  const nativeCurrency = findCurrency(native ?? '');
  const endBlock = from <= to ? await chain.block(to) : null;
  if (nativeCurrency && endBlock) {
    const nativeWaiting = [
      ...(await deps.payments.waitingNative(network)),
      ...open.filter((p) => p.status === 'partially_paid' && p.currency === nativeCurrency.code),
    ];
    const nativeDeposit = (d: { id: string; value: bigint; txHash: string; blockNumber: number; blockHash: string }): Deposit => ({
      id: d.id,
      currency: nativeCurrency.code,
      amount: fromBaseUnits(d.value, nativeCurrency.decimals),
      amountBase: d.value.toString(),
      txHash: d.txHash,
      logIndex: -1,
      blockNumber: d.blockNumber,
      blockHash: d.blockHash,
      confirmations: Math.max(0, head - d.blockNumber + 1),
      detectedAt: now.toISOString(),
      status: 'pending',
      late: false,
    });
    const watched = new Map(nativeWaiting.map((p) => [p.address.toLowerCase(), p]));
    for (const t of nativeWaiting.length > 0 ? await chain.nativeTransfers(from, to) : []) {
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
    for (const listed of nativeWaiting) {
      const p = saved.get(listed.id) ?? listed;
      const balance = await chain.balance(p.address, to);
      const known = p.deposits.filter(counts).reduce((sum, d) => sum + BigInt(d.amountBase), 0n);
      if (balance <= known) continue;
      const deposit = nativeDeposit({
        id: `${network}:native:${p.address.toLowerCase()}:${balance}`,
        value: balance - known,
        txHash: `internal@${to}`,
        blockNumber: to,
        blockHash: endBlock.hash,
      });
      await record({ tenantId: p.tenantId, paymentId: p.id }, () => deposit);
    }
  }

  // 4. Advance the cursor.
  if (from <= to) {
    const hashes = endBlock ? [...cursor.hashes, { n: to, hash: endBlock.hash }] : [...cursor.hashes];
    if (!(await deps.cursors.move(network, cursor.block, { network, block: to, hashes }))) throw new ConflictError(`The ${network} cursor moved meanwhile.`);
  }

  // 5. Confirmations and settlement of open payments: those listed above, the ones this pass saved as saved
  // (a deposit it recorded may have just opened them).
  const current = [...open.filter((p) => !saved.has(p.id)), ...[...saved.values()].filter((p) => workQueueOf(p)?.kind === 'open')];
  const settled = await processOpen(current, head, deps, now);
  await followCustodyDeposits(network, head, deps, now);
  return { network, from, to, logs: logs.length, recorded, rewoundTo, reorged, settled };
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
 * and the payment is seen again by the next pass, while the usual pass reads no payment twice.
 */
async function processOpen(open: readonly PaymentState[], head: number, deps: ScanDeps, now: Date): Promise<number> {
  if (open.length === 0) return 0;
  let rates: UsdRates | undefined;
  const due: DueSweep[] = [];
  const sending: PaymentState[] = [];
  for (const listed of open) {
    let payment = listed;
    const currency = findCurrency(payment.currency);
    if (!currency) continue;
    if (payment.status === 'confirming' || payment.status === 'partially_paid') {
      const before = payment.deposits.length;
      const kept = await behindIsLater(dropReorged(payment, deps.chain, now, deps));
      if (!kept || kept.deposits.length !== before) continue;
      payment = kept;
      const byDeposit = Object.fromEntries(payment.deposits.map((d) => [d.id, Math.max(0, head - d.blockNumber + 1)]));
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
      if (t.state.status === 'confirmed') {
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
    if (payment.status === 'confirmed') due.push({ payment });
    else if (payment.status === 'sending') sending.push(payment);
  }
  // A batch whose pass died before its request (or whose request was cancelled) gives its payments back.
  due.push(...(await strandedSweeps(sending, deps, now)));
  return due.length === 0 ? 0 : sweepDue(due, deps, now);
}
