import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import type { Key } from './keys.js';
import { DAY_TOTAL_ATTRIBUTE } from './aggregate.js';
import { TransactionConditionError, transactWrite } from './transact.js';
import { paymentsTotalItem } from './usage.js';
import { decimalText, storedDecimal } from './values.js';

/**
 * The upgrade of day totals stored in an earlier form (the operator CLI's `migrate payments`; no Lambda loads it).
 * Before the tenant's usage item of the day kept the day's payments total (`payments_usd`), each creation added to
 * an item of its own, `PAYMENTS#DAY#<day>`, a day-total item as withdrawals still keep (`dayTotalItem`), which
 * nothing reads any more.
 */

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
      // Every such item was made by adding to its total, so it has one.
      const total = decimalText(item[DAY_TOTAL_ATTRIBUTE]);
      try {
        await transactWrite([
          {
            Delete: {
              TableName: tableName(),
              Key: key,
              ConditionExpression: '#t = :t',
              ExpressionAttributeNames: { '#t': DAY_TOTAL_ATTRIBUTE },
              ExpressionAttributeValues: { ':t': storedDecimal(total) },
            },
          },
          paymentsTotalItem(tenantId, new Date(`${key.sk.slice(skPrefix.length)}T00:00:00Z`), { amountUsd: total }),
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
