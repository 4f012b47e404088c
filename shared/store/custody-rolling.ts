import { ROLLING_WINDOW_MS } from '../domain/custody.js';
import type { Decimal } from '../domain/money.js';
import { add, sub } from '../domain/money.js';
import type { CustodyRollingTotals, RollingTotal } from '../usecases/custody/ports.js';
import { queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import type { TransactItem } from './transact.js';
import { asWriteItem } from './transact.js';
import { decimalText, storedDecimal } from './values.js';

/**
 * A custody account's rolling 24-hour total of what it sent without review, in ten-minute parts: one item per
 * account and ten minutes (`CUSTODYOUT#<account id>#<yyyy-mm-ddThh:m0>`, its `total` a DynamoDB Number, TTL 2 days).
 *
 * Why parts rather than one item holding the last day's (time, amount) entries under a version: the total is read
 * with one Query (at most 146 small items) and a withdrawal adds to ONE part with a conditioned `ADD`, like a ledger
 * balance. Concurrent withdrawals of an account then only conflict as DynamoDB transactions do (TransactionConflict,
 * retried by transactWrite) instead of each losing a version race and reading again; the condition is what keeps
 * them from passing the threshold together:
 * - the current part's `ADD` is conditioned on its total being within the room the threshold leaves once the other
 *   parts read are counted, so of two concurrent withdrawals that each fit alone, the second is refused;
 * - the parts just before and just after it are conditioned on being as read: a request whose clock reads a
 *   neighbouring ten minutes (a request lasts at most 30 s, the API's timeout) writes there, and would otherwise go
 *   unseen. Older parts can no longer change.
 * A refused transaction is read and decided again by the use case (shared/usecases/custody/withdraw.ts).
 *
 * The window is the current part and the 144 before it (and the next, empty but for clocks a little ahead): a
 * withdrawal counts for at least 24 hours and at most 24 h 10 min.
 */

const PART_MS = 10 * 60_000;
const TTL_SECONDS = 2 * 86_400;
const TOTAL = 'total';

/** The part holding `ms`: `yyyy-mm-ddThh:m0`. */
const partOf = (ms: number): string => new Date(Math.floor(ms / PART_MS) * PART_MS).toISOString().slice(0, 16);

const totalOf = (parts: ReadonlyMap<string, Decimal>): Decimal => [...parts.values()].reduce((sum, part) => add(sum, part), '0');

/** A neighbouring part is still what was read (absent when it was). */
function unchanged(key: ReturnType<typeof keys.custodyOutflow>, read: Decimal | undefined): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: key,
      ConditionExpression: read === undefined ? 'attribute_not_exists(#t)' : '#t = :v',
      ExpressionAttributeNames: { '#t': TOTAL },
      ...(read === undefined ? {} : { ExpressionAttributeValues: { ':v': storedDecimal(read) } }),
    },
  };
}

async function read(tenantId: string, accountId: string, now: Date): Promise<RollingTotal> {
  const at = now.getTime();
  const current = partOf(at);
  const previous = partOf(at - PART_MS);
  const next = partOf(at + PART_MS);
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': keys.custodyOutflow(tenantId, accountId, current).pk,
      ':from': keys.custodyOutflow(tenantId, accountId, partOf(at - ROLLING_WINDOW_MS)).sk,
      ':to': keys.custodyOutflow(tenantId, accountId, next).sk,
    },
    ConsistentRead: true,
  });
  const parts = new Map(items.map((item) => [String(item.part), decimalText(item[TOTAL] ?? '0')]));
  const total = totalOf(parts);
  const key = (part: string) => keys.custodyOutflow(tenantId, accountId, part);
  return {
    total,
    add(amount, room) {
      const others = sub(total, parts.get(current) ?? '0');
      const item: TransactItem = {
        Update: {
          TableName: tableName(),
          Key: key(current),
          UpdateExpression: 'ADD #t :a SET #type = :type, #part = :part, #ttl = :ttl',
          ExpressionAttributeNames: { '#t': TOTAL, '#type': 'type', '#part': 'part', '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':a': storedDecimal(amount),
            ':type': 'custody_outflow',
            ':part': current,
            ':ttl': Math.floor(at / 1000) + TTL_SECONDS,
            ...(room === null ? {} : { ':room': storedDecimal(sub(room, others)), ':zero': 0 }),
          },
          // Within the room left once the other parts are counted (a part not written yet holds 0).
          ...(room === null ? {} : { ConditionExpression: '(attribute_not_exists(#t) AND :zero <= :room) OR #t <= :room' }),
        },
      };
      const guarded = room === null ? [item] : [item, unchanged(key(previous), parts.get(previous)), unchanged(key(next), parts.get(next))];
      return guarded.map(asWriteItem);
    },
  };
}

export const dynamoCustodyRollingTotals: CustodyRollingTotals = { read };
