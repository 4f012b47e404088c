import * as z from 'zod';
import type { CurrencyDefinition } from '../../domain/currencies.js';
import { findCurrency } from '../../domain/currencies.js';
import type { CustodyAddressState } from '../../domain/custody.js';
import { custodyCurrency, isConfirmingDeposit, isCreditedDeposit } from '../../domain/custody.js';
import { ConflictError, GatewayError } from '../../domain/errors.js';
import { CustodyProviderError } from './provider-error.js';
import { findAccount } from './find-account.js';
import type { TokenTransfer } from '../deposits/ports.js';
import type { CustodyChainSource, CustodyPorts } from './ports.js';
import { confirmCustodyDeposit, recordCustodyDeposit } from './scan-deposits.js';
import type { SolanaAddressRead } from './solana-deposits.js';
import { applySolanaRead, readSolanaAddress } from './solana-deposits.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * `POST /custody/accounts/:accountId/sync`: re-reads the account's addresses on their chains now, records every
 * USDT deposit not seen yet and counts the confirmations of the account's deposits still confirming, so a
 * confirmed one is credited at once. Never twice: deposits have natural ids (`<network>:<tx>:<log index>`, the
 * scan's own; `SOL:<signature>:<index>`), recorded once and credited in the same versioned change.
 *
 * - ETH, BSC, TRX: the address's incoming USDT transfers over the last `lookbackBlocks` blocks, through the
 *   network's `CustodyChainSource` (ports.ts: the scanner's deposit source with `transfersTo`; EVM: `eth_getLogs` on
 *   the `to` topic, TRX: TronGrid's account API, shared/chain/{evm,tron}/deposit-source.ts);
 * - SOL: one poll of the address (the Solana poller's, from the address's cursor; credited at finality).
 *
 * Every chain is read first; a chain that cannot be read is 500 `custody_provider_error` with nothing written.
 * Then each deposit is written in its own transaction: a failure there (500 too) leaves what was already recorded
 * recorded, and the next sync, scan or poll goes on from it. Sweeps are left to the chain scanners' next pass.
 */

type SyncDeps = Pick<CustodyPorts, 'accounts' | 'addresses' | 'deposits' | 'chains' | 'clock'>;

interface ChainRead {
  readonly kind: 'chain';
  readonly address: CustodyAddressState;
  readonly network: string;
  readonly currency: CurrencyDefinition;
  readonly chain: CustodyChainSource;
  readonly head: number;
  readonly logs: readonly TokenTransfer[];
}

type Read = ChainRead | ({ readonly kind: 'sol' } & SolanaAddressRead);

/** The answer (spec 2.10's sync): `message` says what was found. */
export const CustodySyncRecord = lazySchema(() =>
  z.object({
    success: z.literal(true),
    account_id: z.string(),
    last_synced: z.string().describe('ISO 8601'),
    message: z.string().describe('How many addresses were read, new deposits found and deposits credited'),
  }),
);
export type SyncAnswer = LazyOutput<typeof CustodySyncRecord>;

/** The address's transfers on its chain (null: a chain this deployment does not read). */
async function readAddress(a: CustodyAddressState, deps: SyncDeps, opened: CustodyChainSource[]): Promise<Read | null> {
  const code = custodyCurrency(a.blockchain);
  const currency = code ? findCurrency(code) : undefined;
  if (!code || !currency) return null;
  if (a.blockchain === 'SOL') {
    const solana = deps.chains.solana;
    return solana ? { kind: 'sol', ...(await readSolanaAddress(a, { solana })) } : null;
  }
  const network = a.blockchain;
  const token = deps.chains.tokenOf(code);
  const chain = token ? deps.chains.sourceFor(network) : null;
  if (!token || !chain) return null;
  opened.push(chain);
  const head = await chain.head();
  const from = Math.max(0, head - deps.chains.lookbackBlocks + 1);
  const logs = await chain.transfersTo(from, head, [chain.addressForm(token)], a.address);
  const to = chain.addressForm(a.address);
  return { kind: 'chain', address: a, network, currency, chain, head, logs: logs.filter((l) => l.value > 0n && chain.addressForm(l.to) === to) };
}

/** Records what a read found and counts confirmations of the account's deposits on that chain. */
async function apply(read: Read, deps: SyncDeps, now: Date): Promise<{ found: number; credited: number }> {
  if (read.kind === 'sol') {
    const r = await applySolanaRead(read, deps, now);
    return { found: r.recorded, credited: r.credited };
  }
  const { address: a, network, chain, head } = read;
  let found = 0;
  let credited = 0;
  const match = { address: a.address, tenantId: a.tenantId, custodyAccountId: a.accountId };
  for (const log of read.logs) {
    if (await recordCustodyDeposit(network, match, log, read.currency, head, now, { custodyDeposits: deps.deposits })) found++;
  }
  const confirming = (await deps.deposits.open(network)).filter((d) => d.tenantId === a.tenantId && d.accountId === a.accountId && isConfirmingDeposit(d));
  for (const d of confirming) {
    try {
      const after = await confirmCustodyDeposit(d, head, { chain, custodyDeposits: deps.deposits, settings: deps.chains }, now);
      if (isCreditedDeposit(after)) credited++;
    } catch (error) {
      // Changed meanwhile by the scanner's pass, which counts its confirmations itself.
      if (!(error instanceof ConflictError)) throw error;
    }
  }
  return { found, credited };
}

const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;

export async function syncAccount(tenantId: string, accountId: string, deps: SyncDeps): Promise<SyncAnswer> {
  const account = await findAccount(tenantId, accountId, deps);
  const addresses = await deps.addresses.list(tenantId, account.accountId);
  const opened: CustodyChainSource[] = [];
  try {
    let reads: (Read | null)[];
    try {
      reads = await Promise.all(addresses.map((a) => readAddress(a, deps, opened)));
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      throw new CustodyProviderError("The account's addresses could not be read on chain; nothing was recorded.", { cause: error });
    }
    const now = deps.clock.now();
    let found = 0;
    let credited = 0;
    for (const read of reads) {
      if (!read) continue;
      try {
        const r = await apply(read, deps, now);
        found += r.found;
        credited += r.credited;
      } catch (error) {
        if (error instanceof GatewayError && !(error instanceof ConflictError)) throw error;
        throw new CustodyProviderError(`Syncing the ${read.address.blockchain} address failed after ${plural(found, 'new deposit')} recorded.`, {
          cause: error,
        });
      }
    }
    const read = reads.filter((r) => r !== null).length;
    return {
      success: true,
      account_id: account.accountId,
      last_synced: now.toISOString(),
      message: `${plural(read, 'address', 'addresses')} read on chain: ${plural(found, 'new deposit')} found, ${plural(credited, 'deposit')} credited.`,
    };
  } finally {
    for (const chain of opened) chain.close();
  }
}
