import type { CurrencyDefinition } from '../../domain/currencies.js';
import { findCurrency } from '../../domain/currencies.js';
import type { CustodyBlockchain, CustodyDepositState } from '../../domain/custody.js';
import {
  awaitsSweep,
  CUSTODY_BLOCKCHAINS,
  custodyCurrency,
  custodySaltId,
  custodySweepReference,
  depositTransition,
  isConfirmingDeposit,
  isSweepingDeposit,
  openDeposit,
} from '../../domain/custody.js';
import { ConflictError } from '../../domain/errors.js';
import { fromBaseUnits } from '../../domain/money.js';
import type { BlockReader, TokenTransfer } from '../deposits/ports.js';
import type { DepositAddressSource, PaymentSettings, SweepPort, TokenContracts } from '../payments/ports.js';
import type { CustodyDepositRepository } from './ports.js';

/**
 * Deposits applied to custody accounts, for the chain scanner's pass (shared/usecases/scanner/scan.ts) and
 * custody's sync: a USDT transfer to a custody account's address is recorded once (id
 * `<network>:<tx>:<log index>`); each pass then re-checks the block of every confirming deposit (a reorganised one
 * is dropped), counts its confirmations and credits the account once it has the currency's, then asks for the
 * sweep of its forwarder into the treasury. It knows no chain: the transfers the pass found, the blocks it can
 * re-check (`BlockReader`) and the sweep port.
 */

export interface CustodyScanDeps {
  /** Custody accounts' deposits (absent: custody addresses are not followed). */
  readonly custodyDeposits?: CustodyDepositRepository | undefined;
  readonly settings: Pick<PaymentSettings, 'confirmationsFor'>;
  readonly contracts: TokenContracts;
  /** The forwarders' salts (an account's forwarder is salted `custody:<account>`). */
  readonly addresses: DepositAddressSource;
  readonly sweep: SweepPort;
  /** The scanned network's blocks (a confirming deposit's block re-checked). */
  readonly chain: BlockReader;
}

/** The custody chain a scanned network is (the custody chains are named like their networks). */
const custodyChainOf = (network: string): CustodyBlockchain | null =>
  (CUSTODY_BLOCKCHAINS as readonly string[]).includes(network) ? (network as CustodyBlockchain) : null;

export async function recordCustodyDeposit(
  network: string,
  match: { readonly address: string; readonly tenantId: string; readonly custodyAccountId: string },
  log: TokenTransfer,
  currency: CurrencyDefinition,
  head: number,
  now: Date,
  deps: Pick<CustodyScanDeps, 'custodyDeposits'>,
): Promise<boolean> {
  const blockchain = custodyChainOf(network);
  // Custody holds its chain's USDT only; any other token sent to the address is not credited.
  if (!deps.custodyDeposits || blockchain === null || custodyCurrency(blockchain) !== currency.code) return false;
  const change = openDeposit(
    {
      tenantId: match.tenantId,
      accountId: match.custodyAccountId,
      depositId: `${network}:${log.txHash}:${log.logIndex}`,
      blockchain,
      network,
      currency: currency.code,
      amount: fromBaseUnits(log.value, currency.decimals),
      address: match.address,
      txHash: log.txHash,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash,
      confirmations: Math.max(0, head - log.blockNumber + 1),
    },
    now,
  );
  return deps.custodyDeposits.record(change, now);
}

/**
 * The confirmations step of a deposit still `confirming` (the scan's and custody sync's): its block re-checked
 * (gone: `dropped`), its confirmations counted, credited at the currency's. Throws ConflictError on a concurrent change.
 */
export async function confirmCustodyDeposit(
  d: CustodyDepositState,
  head: number,
  deps: {
    readonly chain: BlockReader;
    readonly custodyDeposits: CustodyDepositRepository;
    readonly settings: Pick<PaymentSettings, 'confirmationsFor'>;
  },
  now: Date,
): Promise<CustodyDepositState> {
  const repo = deps.custodyDeposits;
  const block = await deps.chain.block(d.blockNumber);
  if (!block || block.hash !== d.blockHash) return repo.save(d, depositTransition(d, { kind: 'reorged' }, now), now);
  const confirmations = Math.max(0, head - d.blockNumber + 1);
  if (confirmations === d.confirmations) return d;
  const currency = findCurrency(d.currency);
  const needed = currency ? deps.settings.confirmationsFor(currency) : Number.POSITIVE_INFINITY;
  return repo.save(d, depositTransition(d, { kind: 'confirmations', confirmations, needed }, now), now);
}

/** One step of an open deposit; a concurrent change (another pass) is left to the next pass. */
async function step(d: CustodyDepositState, head: number, deps: CustodyScanDeps, now: Date): Promise<CustodyDepositState | null> {
  const repo = deps.custodyDeposits;
  if (!repo) return null;
  try {
    if (isConfirmingDeposit(d)) return await confirmCustodyDeposit(d, head, { ...deps, custodyDeposits: repo }, now);
    // Funds held at the account's own address (Solana) are not swept; they never reach a scanner's queue anyway.
    if (awaitsSweep(d)) {
      const sweeping = await repo.save(d, depositTransition(d, { kind: 'sweep_started' }, now), now);
      const currency = findCurrency(d.currency);
      const outcome = await deps.sweep.requestSweep({
        reference: custodySweepReference(d),
        network: d.network,
        currency: d.currency,
        token: currency ? deps.contracts(currency) : null,
        salts: [(await deps.addresses.addressFor(d.network, d.tenantId, custodySaltId(d.accountId))).salt],
      });
      // Submitted: the chain-tx engine's result settles it (onCustodySweepResult); mined now: swept.
      if (!('txHash' in outcome)) return sweeping;
      return await repo.save(sweeping, depositTransition(sweeping, { kind: 'swept', txHash: outcome.txHash }, now), now);
    }
    return d;
  } catch (error) {
    if (error instanceof ConflictError) return null;
    throw error;
  }
}

export async function followCustodyDeposits(network: string, head: number, deps: CustodyScanDeps, now: Date): Promise<void> {
  if (!deps.custodyDeposits) return;
  for (const listed of await deps.custodyDeposits.open(network)) {
    let d: CustodyDepositState | null = listed;
    // A deposit credited in this pass is swept in the same pass.
    for (let i = 0; i < 2 && d !== null; i++) {
      const before: CustodyDepositState = d;
      d = await step(before, head, deps, now);
      if (d === null || d.status === before.status) break;
    }
  }
}

/** The chain-tx engine's result of a custody deposit's sweep: `swept`, or back to `credited` for another sweep. */
export async function onCustodySweepResult(
  ref: { readonly tenantId: string; readonly depositId: string },
  result: { ok: true; txHash: string } | { ok: false },
  deps: { readonly custodyDeposits: CustodyDepositRepository },
  now: Date,
): Promise<CustodyDepositState | null> {
  const d = await deps.custodyDeposits.get(ref.tenantId, ref.depositId);
  if (!d || !isSweepingDeposit(d)) return d;
  const fact = result.ok ? ({ kind: 'swept', txHash: result.txHash } as const) : ({ kind: 'sweep_failed' } as const);
  return deps.custodyDeposits.save(d, depositTransition(d, fact, now), now);
}
