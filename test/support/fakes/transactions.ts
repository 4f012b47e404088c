import { ConflictError } from '../../../shared/domain/errors.js';
import type { EventDraft } from '../../../shared/domain/events.js';
import type { ExportChange, ExportState } from '../../../shared/domain/exports.js';
import type { Decimal } from '../../../shared/domain/money.js';
import { add } from '../../../shared/domain/money.js';
import { statsDay, statsDelta } from '../../../shared/domain/transactions.js';
import type { WriteItem } from '../../../shared/usecases/ports.js';
import type { ExportFiles, ExportJobs, ExportsPorts, ExportUpload } from '../../../shared/usecases/transactions/export-ports.js';
import type { TransactionFilter, TransactionHistory, TransactionPage, TransactionRecord } from '../../../shared/usecases/transactions/ports.js';
import { VirtualClock } from '../clock.js';

/**
 * The transaction history in memory, with the rules of the DynamoDB one (shared/store/transactions.ts): per tenant,
 * newest first by (created_at, type, id), filtered, paged by `limit` with an opaque cursor naming the last record
 * returned (so records added meanwhile never shift a page), or by `offset`. `pages` records every call.
 */
export class InMemoryTransactionHistory implements TransactionHistory {
  private readonly byTenant = new Map<string, Map<string, TransactionRecord>>();
  readonly pages: { tenantId: string; filter: TransactionFilter; limit: number; cursor?: string; offset?: number; returned: number }[] = [];

  /** Adds (or replaces) records of a tenant. */
  put(tenantId: string, ...records: readonly TransactionRecord[]): this {
    const mine = this.byTenant.get(tenantId) ?? new Map<string, TransactionRecord>();
    for (const r of records) mine.set(`${r.type}#${r.id}`, r);
    this.byTenant.set(tenantId, mine);
    return this;
  }

  private static sortKey = (r: TransactionRecord): string => `${r.created_at}#${r.type}#${r.id}`;

  private matching(tenantId: string, f: TransactionFilter): TransactionRecord[] {
    return [...(this.byTenant.get(tenantId)?.values() ?? [])]
      .filter(
        (r) =>
          (f.type === undefined || r.type === f.type) &&
          (f.status === undefined || r.status === f.status) &&
          (f.currency === undefined || r.currency === f.currency) &&
          (f.walletId === undefined || r.wallet_id === f.walletId) &&
          (f.dateFrom === undefined || r.created_at >= f.dateFrom) &&
          (f.dateTo === undefined || r.created_at <= f.dateTo),
      )
      .sort((a, b) => (InMemoryTransactionHistory.sortKey(a) < InMemoryTransactionHistory.sortKey(b) ? 1 : -1));
  }

  async page(
    tenantId: string,
    filter: TransactionFilter,
    options: { readonly limit: number; readonly cursor?: string; readonly offset?: number },
  ): Promise<TransactionPage> {
    const all = this.matching(tenantId, filter);
    let start = options.offset ?? 0;
    if (options.cursor !== undefined) {
      const after = Buffer.from(options.cursor, 'base64url').toString('utf8');
      start = all.findIndex((r) => InMemoryTransactionHistory.sortKey(r) < after);
      if (start < 0) start = all.length;
    }
    const items = all.slice(start, start + options.limit);
    const last = items.at(-1);
    const more = start + items.length < all.length;
    this.pages.push({ tenantId, filter, ...options, returned: items.length });
    return {
      items,
      ...(more && last ? { cursor: Buffer.from(InMemoryTransactionHistory.sortKey(last), 'utf8').toString('base64url') } : {}),
    };
  }

  async count(tenantId: string, filter: TransactionFilter): Promise<number> {
    return this.matching(tenantId, filter).length;
  }

  /** The counters as the store keeps them: each record's contribution on its creation day. */
  async statsSums(tenantId: string, from: string, to: string): Promise<Record<string, Decimal>> {
    const sums: Record<string, Decimal> = {};
    for (const r of this.byTenant.get(tenantId)?.values() ?? []) {
      const day = statsDay(r);
      if (day < from || day > to) continue;
      for (const [name, value] of Object.entries(statsDelta(null, r))) sums[name] = add(sums[name] ?? '0', value);
    }
    return sums;
  }

  async allTimeSums(tenantId: string): Promise<Record<string, Decimal>> {
    return this.statsSums(tenantId, '0000-01-01', '9999-12-31');
  }
}

/** Export jobs in memory: creation refuses an existing id, saves are conditioned on the version read. */
export class InMemoryExportJobs implements ExportJobs {
  readonly states = new Map<string, ExportState>();
  readonly events: (EventDraft & { readonly exportId: string })[] = [];
  readonly alsoWritten: WriteItem[] = [];
  private key = (tenantId: string, id: string) => `${tenantId}|${id}`;

  async get(tenantId: string, exportId: string): Promise<ExportState | null> {
    return this.states.get(this.key(tenantId, exportId)) ?? null;
  }

  async create(change: ExportChange, _now: Date, alsoWrite?: (stored: ExportState) => readonly WriteItem[]): Promise<ExportState> {
    const e = { ...change.state, version: 1 };
    if (this.states.has(this.key(e.tenantId, e.id))) throw new ConflictError('The export changed meanwhile; retry.');
    this.alsoWritten.push(...(alsoWrite?.(e) ?? []));
    this.states.set(this.key(e.tenantId, e.id), e);
    this.events.push(...change.events.map((ev) => ({ ...ev, exportId: e.id })));
    return e;
  }

  async save(previous: ExportState, change: ExportChange, _now: Date): Promise<ExportState> {
    const stored = this.states.get(this.key(previous.tenantId, previous.id));
    if (!stored || stored.version !== previous.version) throw new ConflictError('The export changed meanwhile; retry.');
    const e = { ...change.state, version: previous.version + 1 };
    this.states.set(this.key(e.tenantId, e.id), e);
    this.events.push(...change.events.map((ev) => ({ ...ev, exportId: e.id })));
    return e;
  }
}

export interface StoredFile {
  readonly body: string;
  readonly contentType: string;
  readonly fileName: string;
}

/** Export files in memory: each upload keeps its writes apart until `complete` makes the file visible. */
export class InMemoryExportFiles implements ExportFiles {
  readonly files = new Map<string, StoredFile>();
  /** Every upload started, with its writes (each text as written) and how it ended. */
  readonly uploads: { key: string; writes: string[]; outcome: 'open' | 'completed' | 'aborted' }[] = [];

  upload(key: string, file: { readonly contentType: string; readonly fileName: string }): ExportUpload {
    const record = { key, writes: [] as string[], outcome: 'open' as 'open' | 'completed' | 'aborted' };
    this.uploads.push(record);
    return {
      write: async (text) => {
        if (record.outcome !== 'open') throw new Error(`upload ${record.outcome}`);
        record.writes.push(text);
      },
      complete: async () => {
        if (record.outcome !== 'open') throw new Error(`upload ${record.outcome}`);
        record.outcome = 'completed';
        const body = record.writes.join('');
        this.files.set(key, { body, contentType: file.contentType, fileName: file.fileName });
        return { bytes: Buffer.byteLength(body, 'utf8') };
      },
      abort: async () => {
        if (record.outcome === 'open') record.outcome = 'aborted';
      },
    };
  }

  async downloadUrl(key: string, options: { readonly signedAt: Date; readonly expiresInSeconds: number }): Promise<string> {
    return `memory://exports/${key}?signed=${options.signedAt.toISOString()}&expires=${options.expiresInSeconds}`;
  }
}

/** The export use cases' ports in memory, on a virtual clock. */
export function fakeExports(options: { pageSize?: number; downloadUrlSeconds?: number; clock?: VirtualClock } = {}) {
  const clock = options.clock ?? new VirtualClock();
  const history = new InMemoryTransactionHistory();
  const exports = new InMemoryExportJobs();
  const files = new InMemoryExportFiles();
  const deps: ExportsPorts = {
    exports,
    history,
    files,
    exportSettings: { pageSize: options.pageSize ?? 500, downloadUrlSeconds: options.downloadUrlSeconds ?? 900 },
    clock,
  };
  return { deps, clock, history, exports, files };
}

/** A transaction record with defaults; `n` makes the id and time distinct (newer for larger n). */
export function aTransaction(n: number, overrides: Partial<TransactionRecord> = {}): TransactionRecord {
  const at = new Date(Date.parse('2026-01-01T00:00:00.000Z') + n * 1000).toISOString();
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    type: 'payment',
    status: 'completed',
    subtype: null,
    direction: 'in',
    currency: 'USDTERC20',
    amount: `${n}.000001`,
    fee: '0.01',
    net_amount: `${n}.000001`,
    amount_usd: null,
    created_at: at,
    updated_at: at,
    transaction_hash: null,
    order_id: null,
    custom_id: null,
    wallet_id: null,
    ...overrides,
  };
}
