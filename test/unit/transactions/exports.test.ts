import fc from 'fast-check';
import type { GatewayError } from '../../../shared/domain/errors.js';
import { ValidationError } from '../../../shared/domain/errors.js';
import { EVENTS, parseEventPayload, queuesFor } from '../../../shared/domain/events.js';
import type { ExportFact, ExportState } from '../../../shared/domain/exports.js';
import { EXPORT_RETENTION_DAYS, EXPORT_STATUSES, exportObjectKey, isFinal, MAX_EXPORT_RUNS, openExport, transition } from '../../../shared/domain/exports.js';
import { EXPORT_COLUMNS } from '../../../shared/usecases/transactions/export-format.js';
import { getExport } from '../../../shared/usecases/transactions/get-export.js';
import { ExportRequestBody, requestExport } from '../../../shared/usecases/transactions/request-export.js';
import { runExport } from '../../../shared/usecases/transactions/run-export.js';
import { parseCsv } from '../../support/csv.js';
import { aTransaction, fakeExports } from '../../support/fakes/transactions.js';

const T = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const NOW = new Date('2026-01-01T00:00:00.000Z');
const noFilters = { type: null, status: null, currency: null, wallet_id: null, date_from: null, date_to: null };

const pendingJob = (): ExportState => ({ ...openExport({ id: 'e-1', tenantId: T, format: 'csv', filters: noFilters }, NOW).state, version: 1 });
const body = (input: unknown) => ExportRequestBody().parse(input);

describe('the export lifecycle (pure)', () => {
  it('opens pending under its tenant, kept 7 days, announcing transaction_export.requested to the transaction-exports queue', () => {
    const { state, events } = openExport({ id: 'e-1', tenantId: T, format: 'json', filters: noFilters }, NOW);
    expect(state).toMatchObject({ status: 'pending', rows: 0, bytes: 0, runs: 0, objectKey: `exports/${T}/e-1.json`, completedAt: null });
    expect(Date.parse(state.expiresAt) - NOW.getTime()).toBe(EXPORT_RETENTION_DAYS * 86_400_000);
    expect(events).toEqual([{ type: EVENTS.transactionExportRequested, key: 'requested', payload: { export_id: 'e-1', format: 'json' } }]);
    expect(parseEventPayload(EVENTS.transactionExportRequested, events[0]?.payload)).toEqual({ export_id: 'e-1', format: 'json' });
    expect(queuesFor(EVENTS.transactionExportRequested)).toEqual(['transaction-exports']);
    expect(exportObjectKey(T, 'x', 'csv')).toBe(`exports/${T}/x.csv`);
  });

  it('runs pending -> running -> completed, restarts a running job, fails from pending or running, and refuses the rest', () => {
    const later = new Date(NOW.getTime() + 1000);
    const running = transition(pendingJob(), { kind: 'started' }, later).state;
    expect(running).toMatchObject({ status: 'running', runs: 1, startedAt: later.toISOString() });
    const again = transition(running, { kind: 'started' }, later).state;
    expect([again.status, again.runs]).toEqual(['running', 2]);
    const done = transition(again, { kind: 'completed', rows: 3, bytes: 120 }, later).state;
    expect(done).toMatchObject({ status: 'completed', rows: 3, bytes: 120, completedAt: later.toISOString(), failureReason: null });
    expect(transition(pendingJob(), { kind: 'failed', reason: 'bad' }, later).state).toMatchObject({ status: 'failed', failureReason: 'bad' });
    expect(() => transition(pendingJob(), { kind: 'completed', rows: 0, bytes: 0 }, later)).toThrow(expect.objectContaining({ code: 'invalid_state' }));
    for (const fact of [{ kind: 'started' }, { kind: 'completed', rows: 1, bytes: 1 }, { kind: 'failed', reason: 'x' }] as ExportFact[]) {
      expect(() => transition(done, fact, later)).toThrow(expect.objectContaining({ code: 'invalid_state' }));
    }
    expect(() => transition(running, { kind: 'completed', rows: -1, bytes: 0 }, later)).toThrow(RangeError);
  });

  it('gives up on the start after MAX_EXPORT_RUNS runs', () => {
    let job = pendingJob();
    for (let i = 0; i < MAX_EXPORT_RUNS; i++) job = transition(job, { kind: 'started' }, NOW).state;
    expect([job.status, job.runs]).toEqual(['running', MAX_EXPORT_RUNS]);
    const gaveUp = transition(job, { kind: 'started' }, NOW).state;
    expect(gaveUp).toMatchObject({ status: 'failed', runs: MAX_EXPORT_RUNS, failureReason: expect.stringContaining(String(MAX_EXPORT_RUNS)) });
  });

  it('keeps its invariants under any sequence of facts: final states absorb, runs bounded, sizes only when completed', () => {
    const fact = fc.oneof(
      fc.constant<ExportFact>({ kind: 'started' }),
      fc.record({ kind: fc.constant('completed' as const), rows: fc.nat(), bytes: fc.nat() }),
      fc.record({ kind: fc.constant('failed' as const), reason: fc.string({ minLength: 1 }) }),
    );
    fc.assert(
      fc.property(fc.array(fact, { maxLength: 12 }), (facts) => {
        let job = pendingJob();
        for (const f of facts) {
          const wasFinal = isFinal(job);
          try {
            job = transition(job, f, NOW).state;
            expect(wasFinal).toBe(false);
          } catch (error) {
            expect((error as GatewayError).code).toBe('invalid_state');
          }
          expect(EXPORT_STATUSES).toContain(job.status);
          expect(job.runs).toBeLessThanOrEqual(MAX_EXPORT_RUNS);
          if (job.status !== 'completed') expect([job.rows, job.bytes, job.completedAt]).toEqual([0, 0, null]);
          if (wasFinal) expect(isFinal(job)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('requesting an export', () => {
  it('records the job with the filters applied (dates widened to whole days) and its event', async () => {
    const f = fakeExports();
    const job = await requestExport(
      {
        tenantId: T,
        body: body({ format: 'json', type: 'payment', status: 'completed', currency: 'usdterc20', date_from: '2026-01-01', date_to: '2026-01-31' }),
      },
      f.deps,
    );
    expect(job).toMatchObject({ tenantId: T, format: 'json', status: 'pending', version: 1 });
    expect(job.filters).toEqual({
      type: 'payment',
      status: 'completed',
      currency: 'USDTERC20',
      wallet_id: null,
      date_from: '2026-01-01T00:00:00.000Z',
      date_to: '2026-01-31T23:59:59.999Z',
    });
    expect(f.exports.events.map((e) => [e.type, e.exportId])).toEqual([[EVENTS.transactionExportRequested, job.id]]);
    expect(body({}).format).toBe('csv');
  });

  it('refuses a bad format or filter naming each field, and date_from after date_to naming date_to', async () => {
    const parsed = ExportRequestBody().safeParse({ format: 'xml', type: 'deposit', currency: 'NOPE', wallet_id: '12', date_from: 'yesterday' });
    expect(parsed.success).toBe(false);
    const fields = new Set(parsed.error?.issues.map((i) => i.path.join('.')));
    expect(fields).toEqual(new Set(['format', 'type', 'currency', 'wallet_id', 'date_from']));
    const f = fakeExports();
    await expect(requestExport({ tenantId: T, body: body({ date_from: '2026-02-01', date_to: '2026-01-31T10:00:00Z' }) }, f.deps)).rejects.toMatchObject({
      code: 'invalid_request',
      details: { date_to: [expect.any(String)] },
    });
    await expect(requestExport({ tenantId: T, body: body({ type: 'transfer', status: 'expired' }) }, f.deps)).rejects.toBeInstanceOf(ValidationError);
    expect(f.exports.states.size).toBe(0);
  });
});

describe('any request body', () => {
  it('is accepted, or refused with invalid_request: never another error', async () => {
    const value = (valid: readonly string[]) => fc.oneof(fc.constantFrom(...valid), fc.string(), fc.jsonValue(), fc.constant(null));
    const bodies = fc.record(
      {
        format: value(['csv', 'json', 'CSV']),
        type: value(['payment', 'withdrawal', 'transfer', 'adjustment']),
        status: value(['completed', 'pending', 'expired', 'accepted']),
        currency: value(['USDTERC20', 'usdtpolygon', 'ETH', 'XYZ']),
        wallet_id: value(['0f8fad5b-d9cb-469f-a165-70867728950e', '7']),
        date_from: value(['2026-01-01', '2026-01-01T10:00:00Z', '2026-02-30', '2026-01-01T25:00:00Z', '0001-01-01']),
        date_to: value(['2026-01-31', '2025-12-31T23:59:59.999Z', '9999-12-31', '2026-01-01T10:00:00+14:00']),
      },
      { requiredKeys: [] },
    );
    const f = fakeExports();
    await fc.assert(
      fc.asyncProperty(bodies, async (input) => {
        const parsed = ExportRequestBody().safeParse(input);
        if (!parsed.success) return;
        try {
          const job = await requestExport({ tenantId: T, body: parsed.data }, f.deps);
          expect(job.status).toBe('pending');
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
        }
      }),
      { numRuns: 500 },
    );
  });
});

const exact = (i: number): string => `${i}.${String(i).padStart(17, '0')}7`;

describe('the export worker', () => {
  const history = (f: ReturnType<typeof fakeExports>, n: number) => {
    // 18 places, the last not zero: an amount's exact text survives its spelling (padded, never rounded or cut).
    for (let i = 1; i <= n; i++) f.history.put(T, aTransaction(i, { amount: exact(i), order_id: `order, "${i}"\n` }));
  };

  it('pages through the history and writes one row per record, newest first, amounts exact, never the whole history at once', async () => {
    const f = fakeExports({ pageSize: 100 });
    history(f, 1234);
    const job = await requestExport({ tenantId: T, body: body({}) }, f.deps);
    const done = await runExport({ tenantId: T, exportId: job.id }, f.deps);
    expect(done).toMatchObject({ status: 'completed', rows: 1234, runs: 1 });
    // Thirteen pages of at most 100, each asked from where the last left off.
    expect(f.history.pages.map((p) => [p.limit, p.returned])).toEqual([...Array(12).fill([100, 100]), [100, 34]]);
    expect(f.history.pages[0]?.cursor).toBeUndefined();
    expect(f.history.pages.slice(1).every((p) => p.cursor !== undefined)).toBe(true);
    // Written piece by piece: the header, one write per page of at most 100 rows, the (empty) footer.
    const writes = f.files.uploads[0]?.writes ?? [];
    expect([writes.length, writes.at(-1)]).toEqual([1 + 13 + 1, '']);
    expect(writes.slice(1, -1).map((w) => parseCsv(w).length)).toEqual([...Array(12).fill(100), 34]);
    const file = f.files.files.get(job.objectKey);
    expect(file).toMatchObject({ contentType: expect.stringMatching(/^text\/csv/), fileName: `transactions-${job.id}.csv` });
    expect(done?.bytes).toBe(Buffer.byteLength(file?.body ?? '', 'utf8'));
    const [header, ...rows] = parseCsv(file?.body ?? '');
    expect(header).toEqual([...EXPORT_COLUMNS]);
    const column = (name: string) => EXPORT_COLUMNS.indexOf(name as (typeof EXPORT_COLUMNS)[number]);
    expect(rows.map((r) => r[column('amount')])).toEqual(Array.from({ length: 1234 }, (_, i) => exact(1234 - i)));
    expect(new Set(rows.map((r) => r[column('id')])).size).toBe(1234);
    expect(rows[0]?.[column('order_id')]).toBe('order, "1234"\n');
  });

  it('writes JSON with the filters applied', async () => {
    const f = fakeExports({ pageSize: 7 });
    history(f, 30);
    f.history.put(T, aTransaction(100, { type: 'withdrawal', status: 'pending', direction: 'out' }));
    f.history.put(OTHER, aTransaction(200));
    const job = await requestExport({ tenantId: T, body: body({ format: 'json', type: 'payment', date_to: '2026-01-01T00:00:10Z' }) }, f.deps);
    const done = await runExport({ tenantId: T, exportId: job.id }, f.deps);
    const parsed = JSON.parse(f.files.files.get(job.objectKey)?.body ?? '') as { id: string; amount: string; type: string }[];
    expect(parsed.map((r) => r.amount)).toEqual(Array.from({ length: 10 }, (_, i) => exact(10 - i)));
    expect(done?.rows).toBe(10);
    expect(f.history.pages[0]?.filter).toEqual({ type: 'payment', dateTo: '2026-01-01T00:00:10.000Z' });
  });

  it('leaves a completed job alone when its message comes again', async () => {
    const f = fakeExports();
    history(f, 5);
    const job = await requestExport({ tenantId: T, body: body({}) }, f.deps);
    const first = await runExport({ tenantId: T, exportId: job.id }, f.deps);
    const second = await runExport({ tenantId: T, exportId: job.id }, f.deps);
    expect(second).toEqual(first);
    expect(f.files.uploads).toHaveLength(1);
    expect(await runExport({ tenantId: OTHER, exportId: job.id }, f.deps)).toBeNull();
  });

  it('starts a run that died over from the first page, and fails the job after MAX_EXPORT_RUNS runs', async () => {
    const f = fakeExports({ pageSize: 2 });
    history(f, 5);
    const job = await requestExport({ tenantId: T, body: body({}) }, f.deps);
    const page = f.history.page.bind(f.history);
    let failures = 1;
    f.history.page = async (...args) => {
      if (args[2].cursor !== undefined && failures-- > 0) throw new Error('DynamoDB is unavailable');
      return page(...args);
    };
    await expect(runExport({ tenantId: T, exportId: job.id }, f.deps)).rejects.toThrow('unavailable');
    expect((await f.exports.get(T, job.id))?.status).toBe('running');
    expect(f.files.uploads[0]?.outcome).toBe('aborted');
    expect(f.files.files.size).toBe(0);
    const done = await runExport({ tenantId: T, exportId: job.id }, f.deps);
    expect(done).toMatchObject({ status: 'completed', rows: 5, runs: 2 });
    expect(parseCsv(f.files.files.get(job.objectKey)?.body ?? '')).toHaveLength(6);

    const stuck = await requestExport({ tenantId: T, body: body({}) }, f.deps);
    failures = Number.POSITIVE_INFINITY;
    for (let run = 1; run <= MAX_EXPORT_RUNS; run++) await expect(runExport({ tenantId: T, exportId: stuck.id }, f.deps)).rejects.toThrow();
    const gaveUp = await runExport({ tenantId: T, exportId: stuck.id }, f.deps);
    expect(gaveUp).toMatchObject({ status: 'failed', runs: MAX_EXPORT_RUNS, failureReason: expect.any(String) });
  });

  it('fails the job at once on an error of the request itself', async () => {
    const f = fakeExports();
    const job = await requestExport({ tenantId: T, body: body({}) }, f.deps);
    f.history.page = async () => {
      throw new ValidationError({ cursor: ['Not a cursor of this filter.'] }, 'The cursor does not belong to this filter.');
    };
    expect(await runExport({ tenantId: T, exportId: job.id }, f.deps)).toMatchObject({
      status: 'failed',
      failureReason: 'The cursor does not belong to this filter.',
    });
  });

  it('runs a job once when two deliveries arrive together, and a run overtaken by a restart never publishes its file', async () => {
    const f = fakeExports({ pageSize: 2 });
    history(f, 4);
    const job = await requestExport({ tenantId: T, body: body({}) }, f.deps);
    const [a, b] = await Promise.all([runExport({ tenantId: T, exportId: job.id }, f.deps), runExport({ tenantId: T, exportId: job.id }, f.deps)]);
    expect(f.files.uploads).toHaveLength(1);
    expect((await f.exports.get(T, job.id))?.status).toBe('completed');
    expect([a?.status, b?.status].sort()).toEqual(['completed', 'running']);

    const overtaken = await requestExport({ tenantId: T, body: body({}) }, f.deps);
    const page = f.history.page.bind(f.history);
    let restarted = false;
    f.history.page = async (...args) => {
      const result = await page(...args);
      if (result.cursor === undefined && !restarted) {
        // Meanwhile the message came back and another run restarted the job.
        restarted = true;
        const current = await f.exports.get(T, overtaken.id);
        if (current) await f.exports.save(current, transition(current, { kind: 'started' }, f.clock.now()), f.clock.now());
      }
      return result;
    };
    const result = await runExport({ tenantId: T, exportId: overtaken.id }, f.deps);
    expect(result).toMatchObject({ status: 'running', runs: 2 });
    expect(f.files.uploads.at(-1)?.outcome).toBe('aborted');
    expect(f.files.files.has(overtaken.objectKey)).toBe(false);
  });
});

describe('reading an export', () => {
  it('shows a pending job without a download, a completed one with a URL valid 15 minutes, and 404s another tenant and an expired one', async () => {
    const f = fakeExports();
    f.history.put(T, aTransaction(1));
    const job = await requestExport({ tenantId: T, body: body({ currency: 'USDTERC20' }) }, f.deps);
    const pending = await getExport(T, job.id, f.deps);
    expect(pending).toEqual({
      export_id: job.id,
      status: 'pending',
      format: 'csv',
      rows: 0,
      bytes: 0,
      created_at: job.createdAt,
      completed_at: null,
      failure_reason: null,
      download_url: null,
      expires_at: null,
      filters: { ...noFilters, currency: 'USDTERC20' },
    });
    await runExport({ tenantId: T, exportId: job.id }, f.deps);
    f.clock.advance(1234);
    const completed = await getExport(T, job.id, f.deps);
    expect(completed).toMatchObject({
      status: 'completed',
      rows: 1,
      download_url: `memory://exports/${job.objectKey}?signed=2026-01-01T00:00:01.000Z&expires=900`,
    });
    expect(completed.expires_at).toBe('2026-01-01T00:15:01.000Z');
    await expect(getExport(OTHER, job.id, f.deps)).rejects.toMatchObject({ code: 'not_found' });
    await expect(getExport(T, 'e-unknown', f.deps)).rejects.toMatchObject({ code: 'not_found' });
    // Near the end of the retention the URL ends with it; after it the export is gone.
    f.clock.set(Date.parse(job.expiresAt) - 600_000);
    expect((await getExport(T, job.id, f.deps)).download_url).toContain('expires=600');
    f.clock.set(Date.parse(job.expiresAt));
    await expect(getExport(T, job.id, f.deps)).rejects.toMatchObject({ code: 'not_found' });
  });
});
