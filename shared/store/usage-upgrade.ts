import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import type { Key } from './keys.js';
import { TransactionConditionError, transactWrite } from './transact.js';
import { paymentsTotalItem } from './usage.js';
import { decimalText, storedDecimal } from './values.js';

/**
 * The upgrade of day totals stored in an earlier form (the operator CLI's `migrate payments`; no Lambda loads it).
 * Before the tenant's usage item of the day kept the day's payments total (`payments_usd`), each creation added to
 * an item of its own, `PAYMENTS#DAY#<day>` (`total_usd`), which nothing reads any more.
 */

const LEGACY_TOTAL = 'total_usd';

/**
 * The tenant's day totals of payments kept in their earlier form, items of their own (`PAYMENTS#DAY#<day>`), each
 * added to its day's usage item and deleted in one transaction, conditioned on the total read: a total is carried
 * once however often this runs, and one that an earlier version's creation added to meanwhile is read again. How
 * many were carried.
 */
export async function carryLegacyDayTotals(tenantId: string): Promise<number> {
  const { pk, skPrefix } = keys.legacyPaymentDayPrefix(tenantId);
  const found = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
    ConsistentRead: true,
  });
  let carried = 0;
  for (const first of found) {
    let item: Record<string, unknown> | undefined = first;
    while (item) {
      const key: Key = { pk, sk: String(item.sk) };
      const dayText = key.sk.slice(skPrefix.length);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(dayText)) break;
      const total = item[LEGACY_TOTAL] === undefined ? null : decimalText(item[LEGACY_TOTAL]);
      try {
        await transactWrite([
          {
            Delete: {
              TableName: tableName(),
              Key: key,
              ConditionExpression: total === null ? 'attribute_exists(sk) AND attribute_not_exists(#t)' : '#t = :t',
              ExpressionAttributeNames: { '#t': LEGACY_TOTAL },
              ...(total === null ? {} : { ExpressionAttributeValues: { ':t': storedDecimal(total) } }),
            },
          },
          paymentsTotalItem(tenantId, new Date(`${dayText}T00:00:00Z`), { amountUsd: total ?? '0' }),
        ]);
        carried++;
        break;
      } catch (error) {
        if (!(error instanceof TransactionConditionError)) throw error;
        item = (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
      }
    }
  }
  return carried;
}
