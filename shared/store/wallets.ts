import { transferTransaction } from '../domain/transactions.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, ValidationError } from '../domain/errors.js';
import type { EventDraft } from '../domain/events.js';
import type { TransferChange, WalletRef, WalletState, WalletTransferState } from '../domain/wallets.js';
import { awaitsSettlement, walletRef } from '../domain/wallets.js';
import type { TransferFilter, WalletDirectory, WalletRepository, WalletTransferRepository } from '../usecases/wallets/ports.js';
import type { WriteItem } from '../usecases/ports.js';
import { aggregateOutbox, commitAggregate, counterItem, loadState, nextVersion, readCounter, stateAttributes, stateOf, versionedPut } from './aggregate.js';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import { decimalText } from './values.js';
import type { TransactItem } from './transact.js';
import { asTransactItem } from './transact.js';

/**
 * Wallets and wallet transfers on the single table (shared/store/aggregate.ts: the state as JSON beside the
 * attributes indexes read; every save conditioned on the version). A wallet's integer id comes from a per-tenant
 * sequence item conditioned on the value read, in the creating transaction, with a number item (id -> uuid), the
 * external-id guard and the sharded count; so two creations never share an id or an external id.
 */

type Stored = Record<string, unknown>;
const WALLET = 'wallet';
const TRANSFER = 'wallet_transfer';
const SEQUENCE_ATTEMPTS = 60;

/** The stored record; `ledger_entries` belongs to the ledger (shared/store/ledger.ts), so a save leaves it out. */
function walletItem({ ledgerEntries: _counted, ...w }: WalletState): Stored {
  return {
    ...keys.wallet(w.tenantId, w.walletId),
    ...keys.walletList(w.tenantId, w.id),
    ...stateAttributes(WALLET, w),
    tenant_id: w.tenantId,
    wallet_id: w.walletId,
    created_at: w.createdAt,
  };
}

const walletFromItem = (item: Stored): WalletState => ({
  ...stateOf<WalletState>(item, WALLET),
  ledgerEntries: item.ledger_entries === undefined ? 0 : Number(decimalText(item.ledger_entries)),
});

const put = (item: Stored, condition?: string): TransactItem => ({
  Put: { TableName: tableName(), Item: item, ...(condition ? { ConditionExpression: condition } : {}) },
});
const del = (key: { pk: string; sk: string }): TransactItem => ({ Delete: { TableName: tableName(), Key: key } });

const externalGuard = (w: WalletState): TransactItem =>
  put({ ...keys.walletExternalId(w.tenantId, w.externalId ?? ''), wallet_id: w.walletId }, 'attribute_not_exists(pk)');

const externalTaken = (externalId: string | null) =>
  new ValidationError({ external_id: ['A wallet with this external_id already exists.'] }, `A wallet with external_id ${externalId ?? ''} already exists.`);

async function getItem(key: { pk: string; sk: string }): Promise<Stored | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return Item ?? null;
}

async function walletOfUuid(tenantId: string, walletId: string): Promise<WalletState | null> {
  const item = await getItem(keys.wallet(tenantId, walletId));
  return item ? walletFromItem(item) : null;
}

async function get(tenantId: string, ref: WalletRef): Promise<WalletState | null> {
  if (ref.kind === 'uuid') return walletOfUuid(tenantId, ref.walletId);
  const number = await getItem(keys.walletNumber(tenantId, ref.id));
  return typeof number?.wallet_id === 'string' ? walletOfUuid(tenantId, number.wallet_id) : null;
}

async function byExternalId(tenantId: string, externalId: string): Promise<WalletState | null> {
  const guard = await getItem(keys.walletExternalId(tenantId, externalId));
  return typeof guard?.wallet_id === 'string' ? walletOfUuid(tenantId, guard.wallet_id) : null;
}

const walletOutbox = (w: WalletState, events: readonly EventDraft[], now: Date) =>
  aggregateOutbox({ type: WALLET, id: w.walletId, tenantId: w.tenantId }, events, {}, now);

/** The sequence's next value, conditioned on the value read: a concurrent creation makes this one retry. */
function sequencePut(tenantId: string, last: number, next: number): TransactItem {
  const condition =
    last === 0
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : { ConditionExpression: '#l = :l', ExpressionAttributeNames: { '#l': 'last' }, ExpressionAttributeValues: { ':l': last } };
  return { Put: { TableName: tableName(), Item: { ...keys.walletSequence(tenantId), last: next }, ...condition } };
}

class SequenceMoved extends Error {}

async function create(
  wallet: WalletState,
  events: (stored: WalletState) => readonly EventDraft[],
  now: Date,
  alsoWrite?: (stored: WalletState) => readonly WriteItem[],
): Promise<WalletState> {
  for (let attempt = 1; ; attempt++) {
    const sequence = await getItem(keys.walletSequence(wallet.tenantId));
    const last = sequence?.last === undefined ? 0 : Number(decimalText(sequence.last));
    const w = nextVersion({ ...wallet, id: last + 1 }, null);
    // Item indexes matter: 0 the sequence, 1 the number, 2 the count, 3 the external-id guard; then `alsoWrite` (a
    // refused Idempotency-Key record is transactWrite's own 409).
    const items: TransactItem[] = [
      sequencePut(w.tenantId, last, w.id),
      put({ ...keys.walletNumber(w.tenantId, w.id), wallet_id: w.walletId }, 'attribute_not_exists(pk)'),
      counterItem((shard) => keys.walletCounter(w.tenantId, shard), { count: '1' }),
    ];
    if (w.externalId !== null) items.push(externalGuard(w));
    items.push(...(alsoWrite?.(w) ?? []).map(asTransactItem));
    try {
      await commitAggregate(
        { type: WALLET, id: w.walletId, tenantId: w.tenantId, put: versionedPut(walletItem(w), null), outbox: walletOutbox(w, events(w), now), items, now },
        (index) => (index === 3 ? externalTaken(w.externalId) : new SequenceMoved()),
      );
      return w;
    } catch (error) {
      if (!(error instanceof SequenceMoved)) throw error;
      if (attempt >= SEQUENCE_ATTEMPTS) throw new ConflictError('Too many wallets are being created at once; retry.');
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 10 * Math.min(attempt, 10))));
    }
  }
}

async function save(previous: WalletState, next: WalletState, now: Date): Promise<WalletState> {
  const w = nextVersion(next, previous.version);
  const items: TransactItem[] = [];
  const externalChanged = previous.externalId !== w.externalId;
  if (externalChanged && w.externalId !== null) items.push(externalGuard(w));
  if (externalChanged && previous.externalId !== null) items.push(del(keys.walletExternalId(previous.tenantId, previous.externalId)));
  await commitAggregate(
    { type: WALLET, id: w.walletId, tenantId: w.tenantId, put: versionedPut(walletItem(w), previous.version), outbox: [], items, now },
    () => externalTaken(w.externalId),
  );
  return w;
}

async function remove(w: WalletState): Promise<void> {
  const items: TransactItem[] = [del(keys.walletNumber(w.tenantId, w.id)), counterItem((shard) => keys.walletCounter(w.tenantId, shard), { count: '-1' })];
  if (w.externalId !== null) items.push(del(keys.walletExternalId(w.tenantId, w.externalId)));
  // Unchanged since it was read: the same version, and no ledger entry posted to it since (a save drops the
  // count, but bumps the version).
  const entries = w.ledgerEntries ?? 0;
  const removal: TransactItem = {
    Delete: {
      TableName: tableName(),
      Key: keys.wallet(w.tenantId, w.walletId),
      ConditionExpression: `#v = :v AND ${entries === 0 ? 'attribute_not_exists(#e)' : '#e = :e'}`,
      ExpressionAttributeNames: { '#v': 'version', '#e': 'ledger_entries' },
      ExpressionAttributeValues: { ':v': w.version, ...(entries === 0 ? {} : { ':e': entries }) },
    },
  };
  await commitAggregate({ type: WALLET, id: w.walletId, tenantId: w.tenantId, put: removal, outbox: [], items, now: new Date() });
}

/** The tenant's wallets by id (gsi1), the first `max` of them. */
async function walletsById(tenantId: string, max?: number): Promise<WalletState[]> {
  const items = await queryAll(
    {
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.walletListPartition(tenantId) },
      ScanIndexForward: true,
    },
    max,
  );
  return items.map(walletFromItem);
}

const all = (tenantId: string) => walletsById(tenantId);

async function list(tenantId: string, page: { limit: number; offset: number }) {
  const [wallets, counter] = await Promise.all([walletsById(tenantId, page.offset + page.limit), readCounter(keys.walletCounterPrefix(tenantId), ['count'])]);
  return { wallets: wallets.slice(page.offset, page.offset + page.limit), total: Number(counter.count) };
}

export const dynamoWallets: WalletRepository = { get, byExternalId, create, save, remove, list, all };

/**
 * The payments' wallet directory: a payment names its wallet by the uuid `wallet_id` (the ledger account it credits
 * is `wallet:<wallet_id>`), so only an existing wallet's uuid, as the API shows it, is known.
 */
export const dynamoWalletDirectory: WalletDirectory = {
  exists: async (tenantId, walletId) => {
    const ref = walletRef(walletId);
    return ref?.kind === 'uuid' && ref.walletId === walletId && (await get(tenantId, ref)) !== null;
  },
};

/* ---------------------------------------------------------------- transfers */

function transferItem(t: WalletTransferState): Stored {
  return {
    ...keys.walletTransfer(t.tenantId, t.id),
    ...keys.walletTransferList(t.tenantId, t.createdAt, t.id),
    // In the reconciler's work queue while it waits for the worker (a settlement's put drops it).
    ...(awaitsSettlement(t) ? keys.walletTransferQueue(t.createdAt, t.tenantId, t.id) : {}),
    ...stateAttributes(TRANSFER, t),
    tenant_id: t.tenantId,
    transfer_id: t.id,
    wallet_id: t.walletId,
    status: t.status,
    transfer_type: t.type,
    currency: t.currency,
    created_at: t.createdAt,
  };
}

/** A transfer's outbox events as its changes write them (natural ids `wallet_transfer:<id>:<key>`, its callback URL on each). */
export const transferOutboxEvents = (t: WalletTransferState, events: readonly EventDraft[], now: Date) =>
  aggregateOutbox({ type: TRANSFER, id: t.id, tenantId: t.tenantId }, events, { callback_url: t.callbackUrl }, now);

const transferOutbox = (t: WalletTransferState, change: TransferChange, now: Date) => transferOutboxEvents(t, change.events, now);

/** A transfer item read from an index. */
export const transferOfItem = (item: Stored): WalletTransferState => stateOf<WalletTransferState>(item, TRANSFER);

async function createTransfer(
  change: TransferChange,
  now: Date,
  alsoWrite?: (stored: WalletTransferState) => readonly WriteItem[],
): Promise<WalletTransferState> {
  const t = nextVersion(change.state, null);
  await commitAggregate({
    type: TRANSFER,
    id: t.id,
    tenantId: t.tenantId,
    put: versionedPut(transferItem(t), null),
    outbox: transferOutbox(t, change, now),
    items: (alsoWrite?.(t) ?? []).map(asTransactItem),
    entry: change.entry,
    history: { previous: null, next: transferTransaction(t) },
    now,
  });
  return t;
}

/**
 * A transfer's save with its ledger entry; the ledger refuses an entry on a deleted wallet (WalletGoneError), so
 * a completion into a wallet deleted meanwhile fails and the worker returns the hold instead.
 */
async function saveTransfer(previous: WalletTransferState, change: TransferChange, now: Date): Promise<WalletTransferState> {
  const t = nextVersion(change.state, previous.version);
  await commitAggregate({
    type: TRANSFER,
    id: t.id,
    tenantId: t.tenantId,
    put: versionedPut(transferItem(t), previous.version),
    outbox: transferOutbox(t, change, now),
    entry: change.entry,
    history: { previous: transferTransaction(previous), next: transferTransaction(t) },
    now,
  });
  return t;
}

async function listTransfers(tenantId: string, filter: TransferFilter): Promise<WalletTransferState[]> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': keys.walletTransferListPartition(tenantId) };
  const conditions: string[] = [];
  const add = (attribute: string, value: string | undefined) => {
    if (value === undefined) return;
    names[`#${attribute}`] = attribute;
    values[`:${attribute}`] = value;
    conditions.push(`#${attribute} = :${attribute}`);
  };
  add('wallet_id', filter.walletId);
  add('status', filter.status);
  add('transfer_type', filter.type);
  add('currency', filter.currency);
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND '), ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
  });
  return items.map((item) => stateOf<WalletTransferState>(item, TRANSFER));
}

export const dynamoWalletTransfers: WalletTransferRepository = {
  get: (tenantId, transferId) => loadState<WalletTransferState>(keys.walletTransfer(tenantId, transferId), TRANSFER),
  create: createTransfer,
  save: saveTransfer,
  list: listTransfers,
};
