import type { WriteItem } from '../usecases/ports.js';
import { tableName } from './client.js';
import { subscriptionKeys as keys } from './keys.js';
import { asWriteItem } from './transact.js';

/**
 * The write a completing payment of a subscription commits in its own transaction (issue 30): the subscription becomes
 * due now and its version moves, so an advance that read it before is refused and reads it again. A module of its
 * own: every worker that completes payments carries it, and nothing else of the subscriptions.
 */
export function subscriptionCallInItem(tenantId: string, id: string, now: Date): WriteItem {
  const due = keys.subscriptionDue(now.toISOString(), tenantId, id);
  return asWriteItem({
    Update: {
      TableName: tableName(),
      Key: keys.subscription(tenantId, id),
      UpdateExpression: 'SET gsi3pk = :pk, gsi3sk = :sk ADD #v :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#v': 'version' },
      ExpressionAttributeValues: { ':pk': due.gsi3pk, ':sk': due.gsi3sk, ':one': 1 },
    },
  });
}
