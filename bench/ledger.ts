import { randomUUID } from 'node:crypto';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { creditEntry, MAIN, transferEntry, walletAccount } from '../shared/domain/ledger.js';
import { db, tableName } from '../shared/store/client.js';
import { keys } from '../shared/store/keys.js';
import { postEntry, preparePost } from '../shared/store/ledger.js';
import type { TransactItem } from '../shared/store/transact.js';

/**
 * Ledger transfers per second (main -> wallet, each one TransactWriteItems of 6 items: journal entry,
 * two conditioned balance updates, two postings and the wallet's entry count conditioned on the wallet existing,
 * built and explained by the ledger) beside raw
 * TransactWriteItems of the same items (new journal and posting keys each time) with the conditions
 * dropped, sent straight through the document client with no validation, retry policy or error mapping. Same DynamoDB Local, same
 * concurrency, each worker on its own tenant so neither side measures contention.
 *
 * Needs TABLE_NAME and AWS_ENDPOINT_URL_DYNAMODB pointing at a DynamoDB Local with the gateway table.
 */
export interface LedgerBench {
  readonly transfersPerSecond: number;
  readonly rawPerSecond: number;
  /** transfersPerSecond / rawPerSecond. */
  readonly ratio: number;
}

export interface LedgerBenchOptions {
  readonly durationMs: number;
  /** Concurrent workers; default 8. */
  readonly concurrency?: number;
}

const CURRENCY = 'USDTTRC20' as const;
const BENCH_WALLET = 'bench';

/** Runs `step` on `concurrency` workers for `durationMs`; resolves to completed steps and elapsed ms. */
async function run(durationMs: number, concurrency: number, step: (worker: number) => Promise<void>): Promise<{ done: number; ms: number }> {
  const started = Date.now();
  const deadline = started + durationMs;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (Date.now() < deadline) {
        await step(worker);
        done++;
      }
    }),
  );
  return { done, ms: Date.now() - started };
}

/** The raw counterpart of one transfer: the ledger's own items for it, without conditions. */
function rawTemplate(tenantId: string): { items: TransactItem[]; entryId: string } {
  const { items, entry } = preparePost({ tenantId, entry: transferEntry({ from: MAIN, to: walletAccount(BENCH_WALLET), currency: CURRENCY, amount: '0.01' }) });
  const stripped = items.map((item): TransactItem => {
    if (item.Update) {
      const { ConditionExpression: _c, ReturnValuesOnConditionCheckFailure: _r, ...update } = item.Update;
      const values = Object.fromEntries(Object.entries(update.ExpressionAttributeValues ?? {}).filter(([k]) => !k.startsWith(':need_')));
      return { Update: { ...update, ExpressionAttributeValues: values } };
    }
    if (item.Put) {
      const { ConditionExpression: _c, ...put } = item.Put;
      return { Put: put };
    }
    return item;
  });
  return { items: stripped, entryId: entry.id };
}

/** The template with a new entry id in the journal and posting items, so every write inserts new items as the ledger's do. */
function fresh(template: { items: TransactItem[]; entryId: string }): TransactItem[] {
  const id = randomUUID();
  return template.items.map((item) => {
    if (!item.Put) return item;
    const record = Object.fromEntries(
      Object.entries(item.Put.Item ?? {}).map(([k, v]) => [k, typeof v === 'string' && v.includes(template.entryId) ? v.replace(template.entryId, id) : v]),
    );
    return { Put: { ...item.Put, Item: record } };
  });
}

export async function benchLedger(options: LedgerBenchOptions): Promise<LedgerBench> {
  const concurrency = options.concurrency ?? 8;
  const ledgerTenants = Array.from({ length: concurrency }, () => `bench-${randomUUID()}`);
  const rawTenants = Array.from({ length: concurrency }, () => `bench-raw-${randomUUID()}`);
  for (const tenantId of [...ledgerTenants, ...rawTenants]) {
    // The wallet the transfers credit exists (the ledger takes no entry on a deleted one).
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...keys.wallet(tenantId, BENCH_WALLET), type: 'wallet' } }));
  }
  for (const tenantId of ledgerTenants) {
    await postEntry({ tenantId, entry: creditEntry({ account: MAIN, currency: CURRENCY, amount: '1000000', type: 'adjustment', reason: 'benchmark seed' }) });
  }
  // Warm both paths (connections, JIT) before measuring.
  await postEntry({
    tenantId: ledgerTenants[0] ?? '',
    entry: transferEntry({ from: MAIN, to: walletAccount(BENCH_WALLET), currency: CURRENCY, amount: '0.01' }),
  });
  await db().send(new TransactWriteCommand({ TransactItems: rawTemplate(rawTenants[0] ?? '').items }));

  const raw = rawTenants.map(rawTemplate);
  // The two sides alternate in short rounds, so a change of machine load hits both alike.
  const rounds = Math.max(1, Math.min(8, Math.floor(options.durationMs / 1000)));
  const slice = options.durationMs / rounds;
  const ledgerTotal = { done: 0, ms: 0 };
  const rawTotal = { done: 0, ms: 0 };
  for (let round = 0; round < rounds; round++) {
    const l = await run(slice, concurrency, async (worker) => {
      await postEntry({
        tenantId: ledgerTenants[worker] ?? '',
        entry: transferEntry({ from: MAIN, to: walletAccount(BENCH_WALLET), currency: CURRENCY, amount: '0.01' }),
      });
    });
    const r = await run(slice, concurrency, async (worker) => {
      const template = raw[worker];
      if (template) await db().send(new TransactWriteCommand({ TransactItems: fresh(template) }));
    });
    ledgerTotal.done += l.done;
    ledgerTotal.ms += l.ms;
    rawTotal.done += r.done;
    rawTotal.ms += r.ms;
  }
  const transfersPerSecond = ledgerTotal.done / (ledgerTotal.ms / 1000);
  const rawPerSecond = rawTotal.done / (rawTotal.ms / 1000);
  return { transfersPerSecond, rawPerSecond, ratio: rawPerSecond > 0 ? transfersPerSecond / rawPerSecond : 0 };
}
