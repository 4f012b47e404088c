import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { jest } from '@jest/globals';
import type { SQSEvent } from 'aws-lambda';
import { main } from '../../../scripts/gateway.js';
import { exportRoutes } from '../../../functions/transactions/export-routes.js';
import { QUEUES } from '../../../infra/definition.js';
import type { QueueName } from '../../../infra/definition.js';
import { LOCAL_EXPORT_BUCKET, startS3 } from '../../../infra/local/s3.js';
import type { LocalS3 } from '../../../infra/local/s3.js';
import { startSqs } from '../../../infra/local/sqs.js';
import type { LocalSqs } from '../../../infra/local/sqs.js';
import { resetConfig } from '../../../shared/config/config.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import { requestIdOf, transition } from '../../../shared/domain/chain-tx.js';
import { queueUrlEnv } from '../../../shared/domain/queues.js';
import { createApi } from '../../../shared/http/pipeline.js';
import type { MetricDatum } from '../../../shared/observability/metrics.js';
import { METRIC_NAMES, WORK_DIMENSION } from '../../../shared/observability/metrics.js';
import { resetSqs } from '../../../shared/queue/sqs.js';
import { exportsRuntime } from '../../../shared/runtime/exports.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { reconcileRuntime } from '../../../shared/runtime/monitoring.js';
import { dynamoChainTxStore } from '../../../shared/store/chain-tx.js';
import { getBalance, listAllEntries } from '../../../shared/store/ledger.js';
import { messageBody } from '../../../shared/store/outbox.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import type { ReconcileReport } from '../../../shared/usecases/monitoring/reconcile.js';
import { reconcileAcceptedWork } from '../../../shared/usecases/monitoring/reconcile.js';
import { walletsRuntime } from '../../../shared/runtime/wallets.js';
import { createTransfer } from '../../../shared/usecases/wallets/create-transfer.js';
import { runWithdrawalBatch } from '../../../shared/usecases/withdrawals/process.js';
import { VirtualClock } from '../../support/clock.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { writtenEvent } from '../../support/outbox.js';
import { dynamoWebhookDeliveries } from '../../../shared/store/webhooks/deliveries.js';
import { redeliver } from '../../../shared/usecases/webhooks/redeliver.js';
import { batcherDeps, withdrawalsApi } from '../../support/withdrawals.js';
import { caller, putFixedRates, tenantWithToken } from '../payments/support.js';

/**
 * The reconciler on DynamoDB Local, the local SQS server and the local S3 server: work is accepted through the real
 * route handlers, its messages are lost (nothing routes the outbox here, and a queue is purged), and the reconciler,
 * run with a virtual clock past the deadline, sends the same messages again to the real queues; the real workers
 * then complete the work, once. Nothing here waits for time to pass.
 */
const USED: readonly QueueName[] = ['wallet-transfers', 'transaction-exports', 'chain-results', 'webhook-delivery'];
const AFTER_MINUTES = 10;
const MINUTE = 60_000;
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const WALLET = '0x1111111111111111111111111111111111111111';
const USDT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';

let table: TestTable;
let sqs: LocalSqs;
let s3: LocalS3;
let t: { tenantId: string; bearer: string };
let wallets: ReturnType<typeof caller>;
let exportsApi: ReturnType<typeof caller>;
let withdrawals: ReturnType<typeof caller>;
const clock = new VirtualClock();
/** The reconciler's metrics, as printed: `[work, name, value]`. */
let printed: [string, string, number][] = [];

const reconcile = (): Promise<ReconcileReport> =>
  reconcileAcceptedWork({
    ...reconcileRuntime(),
    clock,
    rule: { afterMinutes: AFTER_MINUTES, maxRedrives: 3 },
    emit: (_ns, dimensions, metrics: readonly MetricDatum[]) => {
      for (const m of metrics) printed.push([dimensions[WORK_DIMENSION] ?? '', m.name, m.value]);
    },
  });

/** Every message waiting in a queue, taken off it. */
async function drain(queue: QueueName): Promise<SQSEvent['Records']> {
  const out: SQSEvent['Records'] = [];
  for (;;) {
    const got = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: sqs.queueUrls[queue], MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    const messages = got.Messages ?? [];
    if (messages.length === 0) return out;
    for (const m of messages) {
      out.push({ messageId: m.MessageId ?? '', body: m.Body ?? '', attributes: { ApproximateReceiveCount: '1' } } as SQSEvent['Records'][number]);
      await sqs.client.send(new DeleteMessageCommand({ QueueUrl: sqs.queueUrls[queue], ReceiptHandle: m.ReceiptHandle }));
    }
  }
}

/** The messages of a queue handed to its real worker: every one succeeds. */
async function work(queue: QueueName, handler: (event: SQSEvent) => Promise<{ batchItemFailures: unknown[] }>): Promise<number> {
  const records = await drain(queue);
  if (records.length > 0) expect((await handler({ Records: records } as SQSEvent)).batchItemFailures).toEqual([]);
  return records.length;
}

const workers = async () => ({
  transfers: (await import('../../../functions/wallet-transfers/handler.js')).handler,
  exports: (await import('../../../functions/transaction-exports/handler.js')).handler,
  results: (await import('../../../functions/chain-results/handler.js')).handler,
});

const printedFor = (name: string) => Object.fromEntries(printed.filter(([, n]) => n === name).map(([work, , value]) => [work, value]));

beforeAll(async () => {
  table = await startTestTable();
  sqs = await startSqs({ queues: QUEUES.filter((q) => USED.includes(q.name)), workers: [] });
  s3 = await startS3();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SQS: sqs.url,
    AWS_ENDPOINT_URL_S3: s3.url,
    EXPORT_BUCKET: LOCAL_EXPORT_BUCKET,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...Object.fromEntries(USED.map((q) => [queueUrlEnv(q), sqs.queueUrls[q]])),
  });
  resetConfig();
  resetSqs();
  await putFixedRates();
  t = await tenantWithToken('Reconciler');
  await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDTERC20', amount: '100', reason: 'test funding' }, ledgerRuntime());
  wallets = caller((await import('../../../functions/wallets/handler.js')).handler, () => t.bearer);
  exportsApi = caller(createApi(exportRoutes, exportsRuntime()), () => t.bearer);
  withdrawals = caller(withdrawalsApi(), () => t.bearer);
});

afterAll(async () => {
  resetSqs();
  await sqs?.close();
  await s3?.close();
  await table?.stop();
});

beforeEach(() => {
  printed = [];
});

describe('the reconciler', () => {
  it('re-drives a wallet transfer and an export whose messages were lost: each completes once, balances right', async () => {
    const wallet = (await wallets('POST', '/wallets/', { body: { name: 'Stranded' } })).body;
    const accepted = await wallets('POST', '/wallets/transfer-to-user/', { body: { wallet_id: wallet.wallet_id, currency: 'USDTERC20', amount: '2' } });
    expect(accepted.status).toBe(202);
    const transferId: string = accepted.body.transfer_id;
    const requested = await exportsApi('POST', '/transactions/export/', { body: {} });
    expect(requested.status).toBe(202);
    const exportId: string = requested.body.export_id;
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '98', pending: '0', locked: '2' });
    const { transfers, exports } = await workers();

    // Their messages are lost: the outbox items exist, nothing reached a queue. Within the deadline nothing is sent.
    clock.set(Date.now() + 60_000);
    expect(await reconcile()).toEqual({
      redriven: { wallet_transfer: 0, transaction_export: 0, withdrawal: 0, webhook_redelivery: 0 },
      stuck: { wallet_transfer: 0, transaction_export: 0, withdrawal: 0, webhook_redelivery: 0 },
    });
    expect(await drain('wallet-transfers')).toEqual([]);

    // Past it, each is sent again, exactly as the event router would have sent it; a second run sends nothing more.
    clock.advance(AFTER_MINUTES * MINUTE);
    expect(await reconcile()).toEqual({
      redriven: { wallet_transfer: 1, transaction_export: 1, withdrawal: 0, webhook_redelivery: 0 },
      stuck: { wallet_transfer: 0, transaction_export: 0, withdrawal: 0, webhook_redelivery: 0 },
    });
    expect((await reconcile()).redriven).toEqual({ wallet_transfer: 0, transaction_export: 0, withdrawal: 0, webhook_redelivery: 0 });
    const transferMessages = await drain('wallet-transfers');
    const settleEvent = await writtenEvent(`wallet_transfer:${transferId}:settle`);
    expect(transferMessages.map((m) => JSON.parse(m.body))).toEqual([JSON.parse(messageBody(settleEvent!))]);
    const exportMessages = await drain('transaction-exports');
    const exportEvent = await writtenEvent(`transaction_export:${exportId}:requested`);
    expect(exportMessages.map((m) => JSON.parse(m.body))).toEqual([JSON.parse(messageBody(exportEvent!))]);

    // The real workers complete them; the same message delivered twice does nothing twice.
    expect((await transfers({ Records: [...transferMessages, ...transferMessages] } as SQSEvent)).batchItemFailures).toEqual([]);
    expect((await exports({ Records: exportMessages } as SQSEvent)).batchItemFailures).toEqual([]);
    expect((await wallets('POST', '/wallets/transfer-history/', { body: {} })).body.transfers[0]).toMatchObject({
      transfer_id: transferId,
      status: 'completed',
    });
    expect((await exportsApi('GET', `/transactions/export/${exportId}/`)).body).toMatchObject({ status: 'completed', download_url: expect.any(String) });
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '98', pending: '0', locked: '0' });
    expect(await getBalance(t.tenantId, `wallet:${wallet.wallet_id}`, 'USDTERC20')).toEqual({ amount: '2', pending: '0', locked: '0' });
    expect(
      (await listAllEntries(t.tenantId))
        .filter((e) => e.id.startsWith(`wallet_transfer:${transferId}:`))
        .map((e) => e.id)
        .sort(),
    ).toEqual([`wallet_transfer:${transferId}:hold`, `wallet_transfer:${transferId}:settle`]);

    // Done work leaves the work queues: later runs find nothing to send and nothing stuck.
    clock.advance(3 * AFTER_MINUTES * MINUTE);
    printed = [];
    expect(await reconcile()).toEqual({
      redriven: { wallet_transfer: 0, transaction_export: 0, withdrawal: 0, webhook_redelivery: 0 },
      stuck: { wallet_transfer: 0, transaction_export: 0, withdrawal: 0, webhook_redelivery: 0 },
    });
    expect(await work('wallet-transfers', transfers)).toBe(0);
    expect(await work('transaction-exports', exports)).toBe(0);
    expect(printedFor(METRIC_NAMES.acceptedWorkStuck)).toEqual({ wallet_transfer: 0, transaction_export: 0, withdrawal: 0, webhook_redelivery: 0 });
  });

  it('counts work a re-drive did not move as stuck, re-drives it again, and stops counting once it is done', async () => {
    const wallet = (await wallets('POST', '/wallets/', { body: { name: 'Slow' } })).body;
    const accepted = await wallets('POST', '/wallets/transfer-to-user/', { body: { wallet_id: wallet.wallet_id, currency: 'USDTERC20', amount: '3' } });
    const transferId: string = accepted.body.transfer_id;
    const { transfers } = await workers();

    clock.set(Date.now() + (AFTER_MINUTES + 1) * MINUTE);
    expect((await reconcile()).redriven.wallet_transfer).toBe(1);
    // The re-driven message is lost too (taken off the queue, never processed).
    expect(await drain('wallet-transfers')).toHaveLength(1);
    printed = [];

    // Within the deadline of the re-drive: waiting, not stuck.
    clock.advance((AFTER_MINUTES - 1) * MINUTE);
    expect(await reconcile()).toMatchObject({ redriven: { wallet_transfer: 0 }, stuck: { wallet_transfer: 0 } });
    // A deadline after the re-drive and still accepted: stuck (the metric the alarm watches says 1), sent once more.
    clock.advance(2 * MINUTE);
    printed = [];
    expect(await reconcile()).toMatchObject({ redriven: { wallet_transfer: 1 }, stuck: { wallet_transfer: 1 } });
    expect(printedFor(METRIC_NAMES.acceptedWorkStuck)).toEqual({ wallet_transfer: 1, transaction_export: 0, withdrawal: 0, webhook_redelivery: 0 });
    expect(printedFor(METRIC_NAMES.acceptedWorkRedriven)).toEqual({ wallet_transfer: 1, transaction_export: 0, withdrawal: 0, webhook_redelivery: 0 });

    expect(await work('wallet-transfers', transfers)).toBe(1);
    expect((await wallets('POST', '/wallets/transfer-history/', { body: { wallet_id: wallet.wallet_id } })).body.transfers[0]).toMatchObject({
      transfer_id: transferId,
      status: 'completed',
    });
    expect(await getBalance(t.tenantId, `wallet:${wallet.wallet_id}`, 'USDTERC20')).toEqual({ amount: '3', pending: '0', locked: '0' });
    clock.advance(2 * AFTER_MINUTES * MINUTE);
    printed = [];
    expect(await reconcile()).toMatchObject({ redriven: { wallet_transfer: 0 }, stuck: { wallet_transfer: 0 } });
    expect(printedFor(METRIC_NAMES.acceptedWorkStuck).wallet_transfer).toBe(0);
  });

  it('re-sends the result of a withdrawal whose chain transaction confirmed but whose result message was lost: it completes once', async () => {
    const created = await withdrawals('POST', '/withdrawal/', { body: { amount: '10', currency: 'USDTERC20', address: DEST } });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    await runWithdrawalBatch(
      batcherDeps({
        wallet: async () => ({ keyId: 'key-1', address: WALLET }),
        chainTx: { store: dynamoChainTxStore, clock: () => new Date() },
        tokenContract: (code) => (code === 'USDTERC20' ? USDT : null),
      }),
    );
    expect((await withdrawals('GET', `/withdrawal/${id}/`)).body.status).toBe('processing');
    const before = await getBalance(t.tenantId, 'main', 'USDTERC20');

    // While its chain transaction is open, the withdrawal is the follower's: nothing to re-send.
    clock.set(Date.now() + (AFTER_MINUTES + 1) * MINUTE);
    expect((await reconcile()).redriven.withdrawal).toBe(0);

    // The engine confirms it (the `chain_tx.confirmed` outbox event is written), and the message is lost.
    const hash = `0x${'ab'.repeat(32)}`;
    let tx = (await dynamoChainTxStore.get(requestIdOf('ETH', id))) as ChainTx;
    const step = async (fact: Parameters<typeof transition>[1]) => {
      tx = await dynamoChainTxStore.save(tx, transition(tx, fact, new Date()));
    };
    await step({ type: 'nonce_allocated', nonce: 0 });
    await step({ type: 'signed', attempt: { hash, raw: '0x00', fees: { type: 0, gasPrice: 1n }, gasLimit: 60_000n, signedAt: new Date().toISOString() } });
    await step({ type: 'broadcast' });
    await step({ type: 'mined', mined: { hash, blockNumber: 7, status: 1, gasUsed: 50_000n } });

    clock.set(Date.now() + (AFTER_MINUTES + 1) * MINUTE);
    expect((await reconcile()).redriven.withdrawal).toBe(1);
    expect((await reconcile()).redriven.withdrawal).toBe(0);
    const { results } = await workers();
    const messages = await drain('chain-results');
    const confirmed = await writtenEvent(`chain_tx:${tx.requestId}:chain_tx.confirmed`);
    expect(messages.map((m) => JSON.parse(m.body))).toEqual([JSON.parse(messageBody(confirmed!))]);
    expect((await results({ Records: [...messages, ...messages] } as SQSEvent)).batchItemFailures).toEqual([]);

    const done = (await withdrawals('GET', `/withdrawal/${id}/`)).body;
    expect([done.status, done.transaction_hash]).toEqual(['completed', hash]);
    // The hold left the ledger once: nothing stays locked, and the rest is as it was.
    expect(before.locked).not.toBe('0');
    expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: before.amount, pending: '0', locked: '0' });
    expect((await listAllEntries(t.tenantId)).filter((e) => e.type === 'withdrawal')).toHaveLength(1);
    clock.advance(2 * AFTER_MINUTES * MINUTE);
    expect(await reconcile()).toMatchObject({ redriven: { withdrawal: 0 }, stuck: { withdrawal: 0 } });
  });

  it('runs once from the operator CLI (`work reconcile`), on the real clock, with its own deadline', async () => {
    const wallet = (await wallets('POST', '/wallets/', { body: { name: 'From the CLI' } })).body;
    // Accepted five minutes ago (its message lost since).
    const fiveMinutesAgo = new Date(Date.now() - 5 * MINUTE);
    const accepted = await createTransfer(
      { tenantId: t.tenantId, type: 'to_sub', body: { wallet_id: wallet.wallet_id, currency: 'USDTERC20', amount: '1' } },
      { ...walletsRuntime(), clock: { now: () => fiveMinutesAgo } },
    );
    const printedLines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((text: string) => void printedLines.push(text));
    try {
      expect(await main(['work', 'reconcile', '--after-minutes', '10', '--json'])).toBe(0);
      expect(await main(['work', 'reconcile', '--after-minutes', '4', '--json'])).toBe(0);
    } finally {
      log.mockRestore();
    }
    expect(printedLines.map((line) => JSON.parse(line).redriven.wallet_transfer)).toEqual([0, 1]);
    const { transfers } = await workers();
    expect(await work('wallet-transfers', transfers)).toBe(1);
    expect((await wallets('POST', '/wallets/transfer-history/', { body: { wallet_id: wallet.wallet_id } })).body.transfers[0]).toMatchObject({
      transfer_id: accepted.id,
      status: 'completed',
    });
  });

  it('re-sends a webhook redelivery (accepted with 202) whose message was lost, until its first attempt is made', async () => {
    const tenantId = t.tenantId;
    const eventId = `evt-${Date.now()}`;
    const original = {
      tenantId,
      deliveryId: `${eventId}.a`,
      eventId,
      eventType: 'payment_status_update',
      webhookId: eventId,
      destination: { kind: 'default' as const, url: 'https://hooks.example.com/a' },
      body: '{"event":"payment_status_update"}',
      status: 'failed' as const,
      attempts: 6,
      createdAt: new Date().toISOString(),
      nextDueAt: null,
      leaseToken: null,
      leaseUntil: null,
    };
    expect(await dynamoWebhookDeliveries.create(original, new Date())).toBe(true);
    // Accepted, but its message never reaches the queue.
    const lost: { body: string }[] = [];
    const view = await redeliver(tenantId, original.deliveryId, {
      clock: { now: () => new Date() },
      webhookDeliveries: dynamoWebhookDeliveries,
      deliveryQueue: { send: async (messages: readonly { body: string }[]) => void lost.push(...messages) },
    } as unknown as Parameters<typeof redeliver>[2]);
    expect(lost).toHaveLength(1);

    clock.set(Date.now() + 60_000);
    expect((await reconcile()).redriven.webhook_redelivery).toBe(0);
    clock.advance(AFTER_MINUTES * MINUTE);
    expect((await reconcile()).redriven.webhook_redelivery).toBe(1);
    expect((await reconcile()).redriven.webhook_redelivery).toBe(0);
    const sent = await drain('webhook-delivery');
    // The same message the redelivery sent: attempt 1 of the new delivery.
    expect(sent.map((m) => JSON.parse(m.body))).toEqual([JSON.parse(lost[0]?.body ?? '')]);
    expect(JSON.parse(sent[0]?.body ?? '')).toMatchObject({ kind: 'webhook_delivery', delivery_id: view.delivery_id, attempt: 1 });

    // Its first attempt made (claimed and recorded as a worker does), it leaves the work queue: nothing more is sent.
    const now = new Date();
    expect(await dynamoWebhookDeliveries.claimAttempt(tenantId, view.delivery_id, 1, 'lease-1', now, new Date(now.getTime() + 60_000))).not.toBeNull();
    expect(await dynamoWebhookDeliveries.completeAttempt(tenantId, view.delivery_id, 1, 'lease-1', { status: 'succeeded', nextDueAt: null, at: now })).toBe(
      true,
    );
    clock.advance(3 * AFTER_MINUTES * MINUTE);
    expect(await reconcile()).toMatchObject({ redriven: { webhook_redelivery: 0 }, stuck: { webhook_redelivery: 0 } });
    expect(await drain('webhook-delivery')).toEqual([]);
  });
});
