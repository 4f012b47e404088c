import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { routedFilter, toLambdaStreamRecord } from '../../../infra/local/sources/stream-records.js';
import { parseEventPayload } from '../../../shared/domain/events.js';
import { MAIN, walletAccount } from '../../../shared/domain/ledger.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { tableName } from '../../../shared/store/client.js';
import { routableRecords } from '../../../shared/store/stream-events.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { caller, tenantWithToken } from '../payments/support.js';
import { settle } from './support.js';

/**
 * `wallet.balance_changed` is told by the table's stream: every write of a wallet's balance row passes the event
 * router's filter (the one CDK deploys, infra/table.ts) and becomes one event with the row's new amounts, what the
 * entry changed and its cause, whatever moved the money. Read here from DynamoDB Local's real stream.
 */
let table: TestTable;

beforeAll(async () => {
  table = await startTestTable();
});

afterAll(async () => {
  await table?.stop();
});

const local = () => ({ region: 'us-east-1', endpoint: table.url, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

/** Every record of the table's stream so far, as Lambda receives them. */
async function streamRecords(): Promise<DynamoDBRecord[]> {
  const arn = (await new DynamoDBClient(local()).send(new DescribeTableCommand({ TableName: tableName() }))).Table?.LatestStreamArn ?? '';
  const streams = new DynamoDBStreamsClient(local());
  const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription?.Shards ?? [];
  const records: StreamRecord[] = [];
  for (const shard of shards) {
    let iterator = (await streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' })))
      .ShardIterator;
    while (iterator) {
      const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      records.push(...(page.Records ?? []));
      if ((page.Records ?? []).length === 0) break;
      iterator = page.NextShardIterator;
    }
  }
  return records.map((r) => toLambdaStreamRecord(r, arn));
}

it('announces every change of a wallet balance, with the new amounts, the change and its cause; main rows stay out', async () => {
  const t = await tenantWithToken('Balance events');
  const call = caller((await import('../../../functions/wallets/handler.js')).handler, () => t.bearer);
  const { ledger } = ledgerRuntime();
  await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDTERC20', amount: '50', reason: 'test funding' }, ledgerRuntime());
  const wallet = (await call('POST', '/wallets/', { body: { name: 'Seller' } })).body as { wallet_id: string };
  const account = walletAccount(wallet.wallet_id);

  const there = await call('POST', '/wallets/transfer-to-user/', { body: { wallet_id: wallet.wallet_id, currency: 'USDTERC20', amount: '20' } });
  await settle(there.body.transfer_id as string);
  const back = await call('POST', '/wallets/withdraw-to-master/', { body: { wallet_id: wallet.wallet_id, currency: 'USDTERC20', amount: '8' } });
  // A payment's credit (as the payment's transition builds it) lands on the wallet too.
  await ledger.post({
    tenantId: t.tenantId,
    entryId: 'payment:p-1',
    entry: {
      type: 'payment',
      currency: 'USDTERC20',
      legs: [{ from: { account: 'platform:external', field: 'amount' }, to: { account, field: 'amount' }, amount: '2.5' }],
      reference: { kind: 'payment', id: 'p-1' },
    },
  });
  await settle(back.body.transfer_id as string);

  const records = await streamRecords();
  const routed = records.filter(routedFilter).flatMap((r, i) => routableRecords(r, String(i)));
  const changes = routed.flatMap((r) => (r && 'event' in r && r.event.type === 'wallet.balance_changed' && r.event.tenantId === t.tenantId ? [r.event] : []));
  const seen = changes.map((e) => {
    const p = parseEventPayload(e.type, e.payload) as Record<string, unknown> & { change: Record<string, string> };
    return [p.wallet_id, p.currency, p.cause, p.amount, p.available_balance, p.locked_amount, p.change.available_balance, p.change.locked_amount];
  });
  // Spelled as the wallet's balance view spells them (USDT: 6 places).
  expect(seen).toEqual([
    [wallet.wallet_id, 'USDTERC20', 'transfer', '20.000000', '20.000000', '0.000000', '20.000000', '0.000000'],
    // The hold of a transfer to main: owned unchanged, 8 moved from available to locked.
    [wallet.wallet_id, 'USDTERC20', 'transfer', '20.000000', '12.000000', '8.000000', '-8.000000', '8.000000'],
    [wallet.wallet_id, 'USDTERC20', 'payment', '22.500000', '14.500000', '8.000000', '2.500000', '0.000000'],
    [wallet.wallet_id, 'USDTERC20', 'transfer', '14.500000', '14.500000', '0.000000', '0.000000', '-8.000000'],
  ]);
  const view = (await call('GET', `/wallets/${wallet.wallet_id}/balance/`)).body;
  expect(JSON.stringify(view)).toContain('"available_balance":"14.500000"');
  // One event per entry: ids are natural, so a record read twice is the same event.
  expect(new Set(changes.map((e) => e.eventId)).size).toBe(4);
  expect(changes.find((e) => e.payload.cause === 'payment')?.payload.reference).toEqual({ kind: 'payment', id: 'p-1' });
  // A change's events come from its one outbox item: the transfer's acceptance is one record telling both of its events.
  const transferId = there.body.transfer_id as string;
  const acceptance = [`wallet_transfer:${transferId}:accepted`, `wallet_transfer:${transferId}:settle`];
  const accepted = routed.flatMap((r) => ('event' in r && acceptance.includes(r.event.eventId) ? [[r.id, r.event.eventId]] : []));
  expect(accepted.map(([, id]) => id)).toEqual(acceptance);
  expect(new Set(accepted.map(([record]) => record)).size).toBe(1);
  // The main account's rows never reach the router.
  const mainRows = records.filter((r) => r.dynamodb?.Keys?.sk?.S === `BAL#${MAIN}#USDTERC20` && r.dynamodb?.NewImage?.tenant_id?.S === t.tenantId);
  expect(mainRows.length).toBeGreaterThan(0);
  expect(mainRows.filter(routedFilter)).toEqual([]);
});
