import type { TransactionRecord } from '../domain/transactions.js';
import { withdrawalTransaction } from '../domain/transactions.js';
import { DailyLimitError } from '../domain/errors.js';
import type { WithdrawalChange, WithdrawalState } from '../domain/withdrawals.js';
import { workQueueOf } from '../domain/withdrawals.js';
import type { WriteItem } from '../usecases/ports.js';
import type { WithdrawalCreation, WithdrawalRepository } from '../usecases/withdrawals/ports.js';
import { aggregateOutbox, commitAggregate, dayTotalItem, loadState, nextVersion, outboxItems, stateAttributes, stateOf, versionedPut } from './aggregate.js';
import { historyItems } from './transactions.js';
import { queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import type { TransactItem } from './transact.js';
import { asTransactItem, asWriteItem } from './transact.js';
import { sub } from '../domain/money.js';

/**
 * Withdrawals on the single table (shared/store/aggregate.ts: the state as JSON beside the attributes lists order
 * on; every save conditioned on the version). Indexes (shared/store/keys.ts): gsi1 per tenant by creation, gsi2
 * per tenant by amount, gsi3 the work queue its status puts it in. Ledger entries commit with the change.
 */

type Stored = Record<string, unknown>;
const TYPE = 'withdrawal';

function withdrawalItem(w: WithdrawalState): Stored {
  return {
    ...keys.withdrawal(w.tenantId, w.id),
    ...keys.withdrawalList(w.tenantId, w.createdAt, w.id),
    ...keys.withdrawalAmountList(w.tenantId, w.amount, w.id),
    ...keys.withdrawalQueue(workQueueOf(w), w.createdAt, w.tenantId, w.id),
    ...stateAttributes(TYPE, w),
    tenant_id: w.tenantId,
    withdrawal_id: w.id,
    status: w.status,
    currency: w.currency,
    network: w.network,
    created_at: w.createdAt,
  };
}

const withdrawalFromItem = (item: Stored): WithdrawalState => stateOf<WithdrawalState>(item, TYPE);

const outboxOf = (w: WithdrawalState, change: WithdrawalChange, now: Date) =>
  aggregateOutbox({ type: TYPE, id: w.id, tenantId: w.tenantId }, change.events, { callback_url: w.callbackUrl }, now);

/** The ledger entry a change carries (its hold, payout or return), if any. */
const entryOf = (change: WithdrawalChange) => {
  const effect = change.effects.find((e) => e.kind === 'post_entry');
  return effect?.kind === 'post_entry' ? { entry: { entryId: effect.entryId, entry: effect.entry } } : {};
};

/**
 * The history of a withdrawal's change: its record before (null: new) and after. A refund's payout has none: the
 * movement is the refund's, recorded by the refund's own writes (shared/store/refunds.ts), so it is counted once.
 */
function historyOf(previous: WithdrawalState | null, w: WithdrawalState): { previous: TransactionRecord | null; next: TransactionRecord } | null {
  if (w.refundId) return null;
  return { previous: previous === null ? null : withdrawalTransaction(previous), next: withdrawalTransaction(w) };
}

const withHistory = (history: ReturnType<typeof historyOf>) => (history === null ? {} : { history });

const historyWrites = (w: WithdrawalState, history: ReturnType<typeof historyOf>): TransactItem[] =>
  history === null ? [] : historyItems(w.tenantId, history.previous, history.next);

/**
 * The writes that create a withdrawal whose money another aggregate's transaction moves (a refund's payout: the
 * refund's hold is its hold): its item, its events and its history row (none for a refund's payout: `historyOf`), to
 * commit in that transaction. A change that posts an entry is refused here: its entry would be lost.
 */
export function withdrawalCreationItems(change: WithdrawalChange, now: Date): WriteItem[] {
  if (change.effects.some((e) => e.kind === 'post_entry')) throw new RangeError('a withdrawal created with an entry needs dynamoWithdrawals.create');
  const w = nextVersion(change.state, null);
  const items: TransactItem[] = [versionedPut(withdrawalItem(w), null), ...outboxItems(outboxOf(w, change, now)), ...historyWrites(w, historyOf(null, w))];
  return items.map(asWriteItem);
}

/**
 * The writes of a change of a withdrawal that posts no entry (a refund's withdrawal followed by its refund): its
 * versioned item and its events, to commit in another aggregate's transaction. Returns it as it will be stored.
 */
export function withdrawalChangeItems(previous: WithdrawalState, change: WithdrawalChange, now: Date): { stored: WithdrawalState; items: WriteItem[] } {
  if (change.effects.some((e) => e.kind === 'post_entry')) throw new RangeError('a withdrawal change with an entry commits through dynamoWithdrawals.save');
  const w = nextVersion(change.state, previous.version);
  const items: TransactItem[] = [
    versionedPut(withdrawalItem(w), previous.version),
    ...outboxItems(outboxOf(w, change, now)),
    ...historyWrites(w, historyOf(previous, w)),
  ];
  return { stored: w, items: items.map(asWriteItem) };
}

async function create(creation: WithdrawalCreation, now: Date): Promise<WithdrawalState> {
  const w = nextVersion(creation.change.state, null);
  // The day's total first: its refusal is item 0; the creation's own conditions next.
  const items: TransactItem[] = [];
  const day = creation.dayTotal;
  if (day !== null) items.push(dayTotalItem(keys.withdrawalDay(w.tenantId, w.createdAt.slice(0, 10)), day.amountUsd, sub(day.limitUsd, day.amountUsd), now));
  const conditions = { from: items.length, items: (creation.conditions?.items ?? []).map(asTransactItem) };
  items.push(...conditions.items);
  items.push(...(creation.alsoWrite?.(w) ?? []).map(asTransactItem));
  await commitAggregate(
    {
      type: TYPE,
      id: w.id,
      tenantId: w.tenantId,
      put: versionedPut(withdrawalItem(w), null),
      outbox: outboxOf(w, creation.change, now),
      items,
      ...entryOf(creation.change),
      ...withHistory(historyOf(null, w)),
      now,
    },
    (index) =>
      index === 0 && day !== null
        ? new DailyLimitError('withdrawal', day.limitUsd)
        : creation.conditions && index >= conditions.from && index < conditions.from + conditions.items.length
          ? creation.conditions.refused()
          : new Error(`The withdrawal ${w.id} could not be created (item ${index} refused).`),
  );
  return w;
}

async function save(
  previous: WithdrawalState,
  change: WithdrawalChange,
  now: Date,
  alsoWrite?: (stored: WithdrawalState) => readonly WriteItem[],
): Promise<WithdrawalState> {
  const w = nextVersion(change.state, previous.version);
  await commitAggregate({
    type: TYPE,
    id: w.id,
    tenantId: w.tenantId,
    put: versionedPut(withdrawalItem(w), previous.version),
    outbox: outboxOf(w, change, now),
    items: (alsoWrite?.(w) ?? []).map(asTransactItem),
    ...entryOf(change),
    ...withHistory(historyOf(previous, w)),
    now,
  });
  return w;
}

async function list(tenantId: string, order: Parameters<WithdrawalRepository['list']>[1]): Promise<WithdrawalState[]> {
  if (order.by === 'amount') {
    const items = await queryAll({
      TableName: tableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.withdrawalAmountPartition(tenantId) },
      ScanIndexForward: order.ascending,
    });
    return items.map(withdrawalFromItem);
  }
  const { from, to } = keys.withdrawalCreatedRange(order.from, order.to);
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.withdrawalListPartition(tenantId), ':from': from, ':to': to },
    ScanIndexForward: order.ascending,
  });
  return items.map(withdrawalFromItem);
}

async function queued(queue: Parameters<WithdrawalRepository['queued']>[0], limit: number): Promise<WithdrawalState[]> {
  const items = await queryAll(
    {
      TableName: tableName(),
      IndexName: 'gsi3',
      KeyConditionExpression: 'gsi3pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.withdrawalQueuePartition(queue) },
      ScanIndexForward: true,
      Limit: limit,
    },
    limit,
  );
  return items.slice(0, limit).map(withdrawalFromItem);
}

export const dynamoWithdrawals: WithdrawalRepository = {
  get: (tenantId, withdrawalId) => loadState<WithdrawalState>(keys.withdrawal(tenantId, withdrawalId), TYPE),
  create,
  save,
  list,
  queued,
};

/** The oldest withdrawals in a work queue (the monitor counts those stuck in `processing`). */
export const queuedWithdrawals = dynamoWithdrawals.queued;
