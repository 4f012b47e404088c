import { resetConfig } from '../../../shared/config/config.js';
import type { Config } from '../../../shared/config/config.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import type { WithdrawalState } from '../../../shared/domain/withdrawals.js';
import { transition as withdrawalTransition } from '../../../shared/domain/withdrawals.js';
import { exportsRuntime } from '../../../shared/runtime/exports.js';
import { dynamoPayments } from '../../../shared/store/payments.js';
import { dynamoRefunds } from '../../../shared/store/refunds.js';
import { dynamoWithdrawals } from '../../../shared/store/withdrawals.js';
import { followingRefunds } from '../../../shared/usecases/refunds/payout.js';
import { EXPORT_COLUMNS } from '../../../shared/usecases/transactions/export-format.js';
import { runExport } from '../../../shared/usecases/transactions/run-export.js';
import { settleWithdrawal } from '../../../shared/usecases/withdrawals/settle.js';
import { parseCsv } from '../../support/csv.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { InMemoryExportFiles } from '../../support/fakes/transactions.js';
import type { Handler } from '../payments/support.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import { paid as paidPayment, paymentOf, routedApi } from './support.js';

/**
 * Refunds in the transaction history on DynamoDB Local, over the payments, refunds, withdrawals and transactions
 * Lambdas' handlers: a refund is a `refund` record from its acceptance (awaiting its address too) to its end, written
 * in each of its transactions (its payout's included); the withdrawal that pays it has no record of its own; the
 * statistics count it as a refund; an export carries its rows.
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
type Row = Record<string, string | null>;
let table: TestTable;
let cfg: Config;
let a: { tenantId: string; bearer: string };
let handler: Handler;
let call: ReturnType<typeof caller>;
/** The withdrawal repository as the batcher and the chain results use it: refunds follow their withdrawals. */
const withdrawals = followingRefunds(dynamoWithdrawals, dynamoRefunds);

beforeAll(async () => {
  table = await startTestTable();
  resetConfig();
  await putFixedRates();
  a = await tenantWithToken('Refund history');
  cfg = servingEth({ PUBLIC_BASE_URL: 'https://pay.example.com', HOT_WALLET_KEY_ID: 'hot-wallet-key' });
  handler = routedApi(cfg, ['payments', 'refunds', 'withdrawals', 'transactions']);
  call = caller(handler, () => a.bearer);
});

afterAll(async () => {
  await table?.stop();
});

/** A 100 USDTERC20 payment (1 % fee, the merchant's) that received 120 and completed: credited 119. */
const paid = (): Promise<PaymentState> => paidPayment({ tenantId: a.tenantId, call }, '120');

const list = async (query: Record<string, string> = {}): Promise<{ transactions: Row[]; total: number }> => {
  const res = await call('GET', '/transactions/transactions/', { query: { limit: '200', ...query } });
  expect(res.status).toBe(200);
  return res.body as { transactions: Row[]; total: number };
};
const recordOf = async (id: string): Promise<Row | undefined> => (await list({ type: 'refund' })).transactions.find((t) => t.id === id);
const dispatched = async (w: WithdrawalState) => withdrawals.save(w, withdrawalTransition(w, { kind: 'dispatched' }, new Date()), new Date());

/** A refund of the payment's 20 excess to DEST: the refund's id and the withdrawal that pays it. */
async function refundedToDest(p: PaymentState): Promise<{ refundId: string; w: WithdrawalState }> {
  const res = await call('POST', `/payments/${p.id}/refunds/`, { body: { address: DEST } });
  expect([res.status, res.body.status]).toEqual([201, 'pending']);
  const refund = await dynamoRefunds.get(a.tenantId, res.body.id as string);
  const w = await dynamoWithdrawals.get(a.tenantId, refund?.withdrawalId ?? 'none');
  if (!w) throw new Error('the refund has no withdrawal');
  return { refundId: res.body.id as string, w };
}

describe('a refund in the history', () => {
  it('awaiting its address: a `refund` record out of the balance, its payment in custom_id; cancelled, the same record cancelled', async () => {
    const p = await paid();
    const made = await call('POST', `/payments/${p.id}/refunds/`, { body: { amount: '20' } });
    expect([made.status, made.body.status]).toEqual([201, 'awaiting_address']);
    const id = made.body.id as string;
    expect(await recordOf(id)).toEqual({
      id,
      type: 'refund',
      status: 'awaiting_address',
      subtype: null,
      direction: 'out',
      currency: 'USDTERC20',
      amount: '20.000000',
      fee: '3.000000',
      net_amount: '20.000000',
      amount_usd: null,
      created_at: made.body.created_at,
      updated_at: made.body.updated_at,
      transaction_hash: null,
      order_id: null,
      custom_id: p.id,
      wallet_id: null,
    });
    expect((await list({ type: 'refund', status: 'awaiting_address' })).transactions.map((t) => t.id)).toContain(id);
    const cancelled = await call('POST', `/refunds/${id}/cancel/`);
    expect(cancelled.status).toBe(200);
    expect(await recordOf(id)).toMatchObject({ status: 'cancelled', amount: '20.000000', updated_at: cancelled.body.updated_at });
    // One record per refund, whatever its changes.
    expect((await list({ type: 'refund' })).transactions.filter((t) => t.id === id)).toHaveLength(1);
  });

  it('paid out: pending, processing, then completed with the fee the chain took; its withdrawal is not in the history', async () => {
    const p = await paid();
    const { refundId, w } = await refundedToDest(p);
    expect(await recordOf(refundId)).toMatchObject({ status: 'pending', amount: '20.000000', fee: '3.000000', custom_id: p.id });
    const sent = await dispatched(w);
    expect(await recordOf(refundId)).toMatchObject({ status: 'processing' });
    await settleWithdrawal(sent, { ok: true, txHash: '0xrefundtx', networkFee: '1' }, new Date(), { withdrawals });
    expect(await recordOf(refundId)).toMatchObject({
      status: 'completed',
      amount: '18.000000',
      fee: '1.000000',
      net_amount: '18.000000',
      transaction_hash: '0xrefundtx',
    });
    expect((await list({ type: 'refund', status: 'completed' })).transactions.map((t) => t.id)).toContain(refundId);
    // The withdrawal that paid it is no movement of its own: not in the list, of any type.
    const all = await list();
    expect(all.transactions.filter((t) => t.id === w.id)).toEqual([]);
    expect((await list({ type: 'withdrawal' })).total).toBe(0);
  });

  it('refunds that settle payments left partially paid past their expiry are recorded in the payments’ transactions', async () => {
    // Two movements in one transaction, each with its statistics counters: never on one shard (DynamoDB refuses that).
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const partial = await paymentOf({ tenantId: a.tenantId, call }, '50', 'confirmed');
      expect(partial.status).toBe('partially_paid');
      const expired = await dynamoPayments.save(
        partial,
        { state: { ...partial, expiryTime: new Date(Date.now() - 1000).toISOString() }, events: [], effects: [] },
        new Date(),
      );
      const made = await call('POST', `/payments/${expired.id}/refunds/`, { body: { amount: '20' } });
      expect([made.status, made.body.status]).toEqual([201, 'awaiting_address']);
      expect(await recordOf(made.body.id as string)).toMatchObject({ type: 'refund', status: 'awaiting_address', amount: '20.000000', custom_id: expired.id });
      ids.push(made.body.id as string);
    }
    expect(new Set(ids).size).toBe(8);
  });

  it('the statistics count refunds as refunds, equal to what the list holds, and no withdrawal for their payouts', async () => {
    const stats = await call('GET', '/transactions/stats/');
    expect(stats.status).toBe(200);
    const refunds = (await list({ type: 'refund' })).transactions;
    const byStatus: Record<string, number> = {};
    for (const t of refunds) byStatus[String(t.status)] = (byStatus[String(t.status)] ?? 0) + 1;
    expect(stats.body.counts.refund).toEqual({ total: refunds.length, by_status: byStatus });
    expect(byStatus).toEqual({ cancelled: 1, completed: 1, awaiting_address: 8 });
    expect(stats.body.counts.withdrawal.total).toBe(0);
    expect(stats.body.volume.USDTERC20.refund).toEqual({ amount: '18', fees: '1' });
    expect(stats.body.volume.USDTERC20.withdrawal).toBeUndefined();
    // The list's total (from the counters) agrees with the list.
    expect((await list({ type: 'refund' })).total).toBe(refunds.length);
  });
});

describe('exports', () => {
  /** Requests an export through the route and runs the worker's step on it, the file kept in memory. */
  async function exported(body: Record<string, string>): Promise<string[][]> {
    const requested = await call('POST', '/transactions/export/', { body: { format: 'csv', ...body } });
    expect(requested.status).toBe(202);
    const files = new InMemoryExportFiles();
    const job = await runExport({ tenantId: a.tenantId, exportId: requested.body.export_id as string }, { ...exportsRuntime(cfg), files });
    expect(job?.status).toBe('completed');
    const file = [...files.files.values()][0];
    if (!file) throw new Error('no file written');
    const [header, ...rows] = parseCsv(file.body);
    expect(header).toEqual([...EXPORT_COLUMNS]);
    return rows;
  }
  const cell = (row: string[], name: (typeof EXPORT_COLUMNS)[number]) => row[EXPORT_COLUMNS.indexOf(name)];

  it('of type refund: every refund row, as the list shows it', async () => {
    const refunds = (await list({ type: 'refund' })).transactions;
    const rows = await exported({ type: 'refund' });
    expect(rows.map((r) => cell(r, 'id')).sort()).toEqual(refunds.map((t) => t.id).sort());
    expect(rows.every((r) => cell(r, 'type') === 'refund' && cell(r, 'direction') === 'out')).toBe(true);
    const completed = rows.find((r) => cell(r, 'status') === 'completed');
    expect(completed && [cell(completed, 'amount'), cell(completed, 'fee'), cell(completed, 'net_amount'), cell(completed, 'transaction_hash')]).toEqual([
      '18.000000',
      '1.000000',
      '18.000000',
      '0xrefundtx',
    ]);
  });

  it('unfiltered: the refund rows beside the payments, no withdrawal row for a payout', async () => {
    const rows = await exported({});
    const types = rows.map((r) => cell(r, 'type'));
    expect(types.filter((t) => t === 'refund')).toHaveLength(10);
    expect(types.filter((t) => t === 'withdrawal')).toHaveLength(0);
    expect(types).toContain('payment');
  });
});
