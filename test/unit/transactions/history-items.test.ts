import { resetConfig } from '../../../shared/config/config.js';
import { refundTransaction } from '../../../shared/domain/transactions.js';
import { keys } from '../../../shared/store/keys.js';
import type { TransactItem } from '../../../shared/store/transact.js';
import { historyItems } from '../../../shared/store/transactions.js';
import { aRefund } from '../../support/fixtures/refunds.js';

/**
 * The history writes of a movement that shares its transaction with another (a refund created in its payment's save):
 * DynamoDB refuses a transaction that touches one item twice, so the statistics counters go to shards the other
 * items do not update.
 */

beforeAll(() => {
  process.env.TABLE_NAME = 'unit-history';
  process.env.AWS_REGION = 'us-east-1';
  resetConfig();
});

const refund = aRefund();

const updatedKeys = (items: readonly TransactItem[]) => items.flatMap((i) => (i.Update ? [`${String(i.Update.Key?.sk)}`] : []));

it('the record and one update on a shard of the day and one of all time', () => {
  const items = historyItems('t1', null, refundTransaction(refund));
  expect(items[0]?.Put?.Item).toMatchObject({ ...keys.transaction('t1', 'refund', 'r1'), tx_type: 'refund', status: 'awaiting_address' });
  expect(updatedKeys(items)).toEqual([expect.stringMatching(/^TXSTATS#2026-03-01#[0-7]$/), expect.stringMatching(/^TXSTATS#ALL#[0-7]$/)]);
});

it('never a shard another item of the transaction already updates', () => {
  // Every shard but 5 of the day, and every one but 2 of all time, taken by the payment's own history writes.
  const taken: TransactItem[] = [];
  for (let shard = 0; shard < 8; shard++) {
    if (shard !== 5)
      taken.push({ Update: { TableName: 'unit-history', Key: keys.transactionStats('t1', '2026-03-01', shard), UpdateExpression: 'ADD x :one' } });
    if (shard !== 2) taken.push({ Update: { TableName: 'unit-history', Key: keys.transactionStatsAllTime('t1', shard), UpdateExpression: 'ADD x :one' } });
  }
  for (let run = 0; run < 20; run++) {
    expect(updatedKeys(historyItems('t1', null, refundTransaction(refund), taken))).toEqual(['TXSTATS#2026-03-01#5', 'TXSTATS#ALL#2']);
  }
});

it('the shards of a change that moves no counter are not needed: the record alone', () => {
  const record = refundTransaction(refund);
  expect(historyItems('t1', record, { ...record, updated_at: '2026-03-01T11:00:00.000Z' })).toHaveLength(1);
});
