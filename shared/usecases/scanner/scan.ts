import type { CurrencyDefinition } from '../../domain/currencies.js';
import { findCurrency, NETWORKS } from '../../domain/currencies.js';
import { ConflictError } from '../../domain/errors.js';
import type { CustodyDepositRepository } from '../custody/ports.js';
import { followCustodyDeposits, recordCustodyDeposit } from '../custody/scan-deposits.js';
import { paymentPass, rewindPayments } from '../payments/deposits.js';
import type { PaymentsDeps, SweepPort } from '../payments/ports.js';
import { payableCurrencies } from '../payments/resolve.js';
import type { AddressMatch, DepositSource, TokenTransfer } from '../deposits/ports.js';
import { DEFAULT_MEMPOOL_BUDGET, MempoolRotation } from './mempool-rotation.js';
import type { ScanCursor, ScanCursorStore } from './ports.js';

/**
 * One pass of a network's scanner (DESIGN sections 5 and 10), chain-agnostic: the network's blocks are read through
 * its DepositSource (one adapter per chain family: shared/chain/<family>/deposit-source.ts), the deposits found are
 * applied to payments (shared/usecases/payments/deposits.ts) or to custody accounts
 * (shared/usecases/custody/scan-deposits.ts), whichever the deposit-address index names.
 *
 * 1. reorg check: the last checkpoint's block must still have the recorded hash; otherwise rewind to the
 *    newest checkpoint that still matches and drop the deposits of the abandoned blocks (back to waiting);
 * 2. ONE read of the range's transfers of the catalogue's token contracts (no address filter: EVM one eth_getLogs),
 *    `to` matched against the deposit-address index in ONE batched lookup (a BatchGetItem per 100 addresses), each
 *    deposit recorded once (conditional put of `network:tx:logIndex` in the same transaction as its change);
 *    On a UTXO network (Bitcoin) the range's outputs (`source.utxos`: each block read once) are matched the same
 *    way, as deposits of the network's coin;
 * 3. for payments waiting in the network's native coin, where the source reads it (native transfers leave no
 *    event): the range's top-level transfers to them, then a balance check at the range's end; on a UTXO network,
 *    the payments waiting in its coin (and those partially paid) looked up in its mempool (`source.mempool`), at most
 *    `mempoolRotation.budget` a pass, the longest unchecked first: a deposit is "seen" seconds after its broadcast;
 * 4. the cursor advances with a conditional update;
 * 5. open payments: confirmations counted (each deposit's block hash re-checked); the payments confirmed are swept
 *    together, one factory call per currency; custody deposits: confirmations, credit, sweep.
 *
 * Cost grows with blocks and deposits, not with the number of watched addresses (the mempool lookups, bounded per
 * pass, are the one exception: they buy seconds before the first block).
 */
export interface ScannerDeps extends PaymentsDeps {
  readonly cursors: ScanCursorStore;
  /** Custody accounts' deposits, found by the same pass (absent: custody addresses are not followed). */
  readonly custodyDeposits?: CustodyDepositRepository;
}

export interface ScanDeps extends ScannerDeps {
  /** The scanned network's blocks, as deposits. */
  readonly source: DepositSource;
  readonly sweep: SweepPort;
  /** Most blocks per read of transfers. */
  readonly maxRange?: number;
  /** Which waiting payments a pass looks up in the mempool (UTXO networks); default: the first 100 listed. */
  readonly mempoolRotation?: MempoolRotation;
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
  /** Mempool lookups of this pass (UTXO networks). */
  readonly mempoolLookups: number;
  /** Blocks between the tip read by this pass and the cursor after it. */
  readonly behind: number;
}

/** Starts (or restarts) a network's cursor at `block` (the last block considered scanned). */
export async function initCursor(network: string, block: number, deps: Pick<ScanDeps, 'source' | 'cursors'>): Promise<void> {
  const existing = await deps.cursors.get(network);
  const b = await deps.source.block(block);
  const next: ScanCursor = { network, block, hashes: b ? [{ n: block, hash: b.hash }] : [] };
  if (!(await deps.cursors.move(network, existing?.block ?? null, next))) throw new ConflictError(`The ${network} cursor moved meanwhile.`);
}

/** The network's catalogue tokens by contract, in the source's address form. */
function tokensOf(network: string, deps: ScanDeps): Map<string, CurrencyDefinition> {
  const map = new Map<string, CurrencyDefinition>();
  for (const c of payableCurrencies(deps)) {
    if (c.network !== network || c.native) continue;
    const address = deps.contracts(c);
    if (address) map.set(deps.source.addressForm(address), c);
  }
  return map;
}

/** The cursor after a reorg check of its last checkpoint: rewound (and the payments' lost deposits dropped) when it moved. */
async function checkReorg(
  network: string,
  cursor: ScanCursor,
  head: number,
  now: Date,
  deps: ScanDeps,
): Promise<{ cursor: ScanCursor; rewoundTo: number | null; reorged: number }> {
  const { source } = deps;
  const last = cursor.hashes[cursor.hashes.length - 1];
  if (!last || last.n !== cursor.block) return { cursor, rewoundTo: null, reorged: 0 };
  const current = await source.block(last.n);
  if (current && current.hash === last.hash) return { cursor, rewoundTo: null, reorged: 0 };
  let ancestor: { n: number; hash: string } | undefined;
  for (const cp of [...cursor.hashes].reverse()) {
    if (cp.n > head) continue;
    const b = await source.block(cp.n);
    if (b && b.hash === cp.hash) {
      ancestor = cp;
      break;
    }
  }
  const rewoundTo = ancestor?.n ?? Math.max(0, Math.min(head, (cursor.hashes[0]?.n ?? cursor.block) - 1));
  const reorged = await rewindPayments(network, source, now, deps);
  const kept = cursor.hashes.filter((h) => h.n <= rewoundTo);
  if (!(await deps.cursors.move(network, cursor.block, { network, block: rewoundTo, hashes: kept })))
    throw new ConflictError(`The ${network} cursor moved meanwhile.`);
  return { cursor: { network, block: rewoundTo, hashes: kept }, rewoundTo, reorged };
}

export async function scanOnce(network: string, deps: ScanDeps): Promise<ScanReport> {
  const now = deps.clock.now();
  const { source } = deps;
  const head = await source.head();
  let stored = await deps.cursors.get(network);
  if (!stored) {
    await initCursor(network, head, deps);
    stored = await deps.cursors.get(network);
    if (!stored) throw new ConflictError(`The ${network} cursor could not be created.`);
  }

  // 1. Reorg check on the last checkpoint.
  const { cursor, rewoundTo, reorged } = await checkReorg(network, stored, head, now, deps);

  // 2. Token transfers of the range, matched against the deposit-address index.
  const from = cursor.block + 1;
  const to = Math.min(head, from + (deps.maxRange ?? 500) - 1);
  const payments = paymentPass(network, head, now, deps);
  let transfers = 0;
  let custodyRecorded = 0;
  if (from <= to) {
    const tokens = tokensOf(network, deps);
    const found = await source.tokenTransfers(from, to, [...tokens.keys()]);
    const coin = findCurrency(NETWORKS[network as keyof typeof NETWORKS]?.nativeCurrency ?? '');
    const outputs = source.utxos && coin ? await source.utxos.outputs(from, to) : [];
    transfers = found.length + outputs.length;
    const apply = async (t: TokenTransfer, match: AddressMatch, currency: CurrencyDefinition): Promise<void> => {
      if (match.custodyAccountId !== undefined) {
        if (await recordCustodyDeposit(network, { ...match, custodyAccountId: match.custodyAccountId }, t, currency, head, now, deps)) custodyRecorded++;
        return;
      }
      await payments.token(match, t, currency);
    };
    const all = [...found, ...outputs];
    const matches = await deps.payments.matchAddresses(
      source.family,
      all.map((t) => source.addressForm(t.to)),
    );
    const byAddress = new Map(matches.map((m) => [source.addressForm(m.address), m]));
    for (const t of found) {
      const match = byAddress.get(source.addressForm(t.to));
      const currency = tokens.get(source.addressForm(t.token));
      if (match && currency && t.value > 0n) await apply(t, match, currency);
    }
    for (const t of outputs) {
      const match = byAddress.get(source.addressForm(t.to));
      if (match && coin && t.value > 0n) await apply(t, match, coin);
    }
  }

  // 3. The native coin, where the source reads it.
  const endBlock = from <= to ? await source.block(to) : null;
  if (source.native && endBlock) await payments.native(source.native, (a) => source.addressForm(a), { from, to, endHash: endBlock.hash });
  const rotation = deps.mempoolRotation ?? new MempoolRotation(DEFAULT_MEMPOOL_BUDGET);
  const mempoolLookups = source.mempool ? await payments.mempool(source.mempool, (list, skip) => rotation.pick(list, now, skip)) : 0;

  // 4. Advance the cursor.
  if (from <= to) {
    const hashes = endBlock ? [...cursor.hashes, { n: to, hash: endBlock.hash }] : [...cursor.hashes];
    if (!(await deps.cursors.move(network, cursor.block, { network, block: to, hashes }))) throw new ConflictError(`The ${network} cursor moved meanwhile.`);
  }

  // 5. Confirmations and settlement of open payments, then custody deposits.
  const settled = await payments.settle(source, deps);
  await followCustodyDeposits(network, head, { ...deps, chain: source }, now);
  return {
    network,
    from,
    to,
    logs: transfers,
    recorded: payments.recorded + custodyRecorded,
    rewoundTo,
    reorged,
    settled,
    mempoolLookups,
    behind: Math.max(0, head - to),
  };
}
