import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CustodyAccountState, CustodyAddressState, CustodyDepositChange, CustodyDepositState, CustodyTransferState } from '../domain/custody.js';
import { isFollowedDeposit, NO_REVIEW_POLICY } from '../domain/custody.js';
import { ConflictError } from '../domain/errors.js';
import type { EntryDraft } from '../domain/ledger.js';
import type {
  CustodyAccountRepository,
  CustodyAddressRepository,
  CustodyDepositRepository,
  CustodyPolicyRepository,
  CustodyTransferRepository,
} from '../usecases/custody/ports.js';
import { decimalText } from './values.js';
import { aggregateOutbox, commitAggregate, loadState, nextVersion, stateAttributes, stateOf, versionedPut } from './aggregate.js';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import { historyItems } from './transactions.js';
import { custodyDepositTransaction, custodyTransferTransaction } from '../domain/transactions.js';
import { ExtraItemConditionError, postEntry } from './ledger.js';
import type { WriteItem } from '../usecases/ports.js';
import type { TransactItem } from './transact.js';
import { asTransactItem, isConditionalCheckFailed, TransactionConditionError, transactWrite } from './transact.js';

/**
 * Custody on the single table: accounts (versioned state, listed by creation on gsi1), one deposit-address item
 * per account and chain (created once, conditioned on absence, with the `ADDRESS#` item the chain scanners
 * match deposits against), and transfers, each recorded in the transaction of its ledger entry.
 */

type Stored = Record<string, unknown>;
const ACCOUNT = 'custody_account';

function accountItem(a: CustodyAccountState): Stored {
  return {
    ...keys.custodyAccount(a.tenantId, a.accountId),
    ...keys.custodyAccountList(a.tenantId, a.createdAt, a.accountId),
    ...stateAttributes(ACCOUNT, a),
    tenant_id: a.tenantId,
    account_id: a.accountId,
    status: a.status,
    created_at: a.createdAt,
  };
}

async function createAccount(account: CustodyAccountState, alsoWrite?: (stored: CustodyAccountState) => readonly WriteItem[]): Promise<CustodyAccountState> {
  const stored = nextVersion(account, null);
  const items = (alsoWrite?.(stored) ?? []).map(asTransactItem);
  await commitAggregate({
    type: ACCOUNT,
    id: stored.accountId,
    tenantId: stored.tenantId,
    put: versionedPut(accountItem(stored), null),
    outbox: [],
    items,
    now: new Date(stored.createdAt),
  });
  return stored;
}

async function listAccounts(tenantId: string, page: { skip: number; limit: number; status?: string }): Promise<CustodyAccountState[]> {
  const items = await queryAll(
    {
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.custodyAccountListPartition(tenantId), ...(page.status ? { ':s': page.status } : {}) },
      ...(page.status ? { FilterExpression: '#s = :s', ExpressionAttributeNames: { '#s': 'status' } } : {}),
      ScanIndexForward: true,
    },
    page.skip + page.limit,
  );
  return items.slice(page.skip).map((item) => stateOf<CustodyAccountState>(item, ACCOUNT));
}

export const dynamoCustodyAccounts: CustodyAccountRepository = {
  get: (tenantId, accountId) => loadState<CustodyAccountState>(keys.custodyAccount(tenantId, accountId), ACCOUNT),
  create: createAccount,
  list: listAccounts,
};

/* ---------------------------------------------------------------------------------------------------- addresses */

function addressFromItem(item: Stored): CustodyAddressState {
  return {
    tenantId: String(item.tenant_id),
    accountId: String(item.account_id),
    blockchain: item.blockchain as CustodyAddressState['blockchain'],
    address: String(item.address),
    createdAt: String(item.created_at),
    lastDepositAt: typeof item.last_deposit_at === 'string' ? item.last_deposit_at : null,
    ...(typeof item.key_id === 'string' ? { keyId: item.key_id } : {}),
    ...(typeof item.history_cursor === 'string' ? { historyCursor: item.history_cursor } : {}),
  };
}

/** Chains whose custody addresses are polled one by one (listed on gsi3) rather than matched by a block scan. */
const POLLED_CHAINS: readonly string[] = ['SOL'];

async function getAddress(tenantId: string, accountId: string, blockchain: string): Promise<CustodyAddressState | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.custodyAddress(tenantId, accountId, blockchain), ConsistentRead: true }));
  return Item ? addressFromItem(Item) : null;
}

/**
 * Stores an account's address on a chain unless one exists: the address item conditioned on absence, and the
 * scanners' `ADDRESS#` item (shared by the EVM chains, whose forwarder address is the same) conditioned on being
 * absent or the same account's. Resolves to the stored address and whether this call created it.
 */
async function createAddress(a: CustodyAddressState, family: string): Promise<{ address: CustodyAddressState; created: boolean }> {
  const items: TransactItem[] = [
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.custodyAddress(a.tenantId, a.accountId, a.blockchain),
          type: 'custody_address',
          tenant_id: a.tenantId,
          account_id: a.accountId,
          blockchain: a.blockchain,
          address: a.address,
          created_at: a.createdAt,
          ...(a.keyId === undefined ? {} : { key_id: a.keyId }),
          ...(POLLED_CHAINS.includes(a.blockchain) ? keys.custodyAddressWatch(a.blockchain, a.createdAt, a.tenantId, a.accountId) : {}),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.depositAddress(family, a.address),
          type: 'deposit_address',
          kind: 'custody',
          tenant_id: a.tenantId,
          custody_account_id: a.accountId,
          address: a.address,
          created_at: a.createdAt,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR custody_account_id = :account',
        ExpressionAttributeValues: { ':account': a.accountId },
      },
    },
  ];
  try {
    await transactWrite(items);
    return { address: a, created: true };
  } catch (error) {
    if (!(error instanceof TransactionConditionError) && !isConditionalCheckFailed(error)) throw error;
    const existing = await getAddress(a.tenantId, a.accountId, a.blockchain);
    if (!existing) throw error;
    return { address: existing, created: false };
  }
}

async function listAddresses(tenantId: string, accountId: string): Promise<CustodyAddressState[]> {
  const prefix = keys.custodyAddressPrefix(tenantId, accountId);
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
    ExpressionAttributeValues: { ':pk': prefix.pk, ':p': prefix.skPrefix },
    ConsistentRead: true,
  });
  return items.map(addressFromItem);
}

/** Every custody address of a polled chain (all tenants), oldest first. */
async function watchedAddresses(blockchain: string): Promise<CustodyAddressState[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi3',
    KeyConditionExpression: 'gsi3pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.custodyAddressWatchPartition(blockchain) },
  });
  return items.map(addressFromItem);
}

/** Moves an address's history cursor from the one read (absent: none yet); false when it moved meanwhile. */
async function moveCursor(a: CustodyAddressState, to: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.custodyAddress(a.tenantId, a.accountId, a.blockchain),
        UpdateExpression: 'SET history_cursor = :to',
        ConditionExpression: a.historyCursor === undefined ? 'attribute_exists(pk) AND attribute_not_exists(history_cursor)' : 'history_cursor = :from',
        ExpressionAttributeValues: { ':to': to, ...(a.historyCursor === undefined ? {} : { ':from': a.historyCursor }) },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

export const dynamoCustodyAddresses: CustodyAddressRepository = {
  get: getAddress,
  create: createAddress,
  list: listAddresses,
  watched: watchedAddresses,
  moveCursor,
};

/* ---------------------------------------------------------------------------------------------------- transfers */

/**
 * The transfer, its ledger entry, its transaction-history record and `alsoWrite` (the Idempotency-Key record) in ONE
 * transaction (InsufficientBalanceError when the source lacks funds).
 */
async function commitTransfer(t: CustodyTransferState, entry: EntryDraft, alsoWrite: readonly WriteItem[] = []): Promise<void> {
  const item: TransactItem = {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.custodyTransfer(t.tenantId, t.transferId),
        type: 'custody_transfer',
        tenant_id: t.tenantId,
        state: JSON.stringify(t),
        created_at: t.createdAt,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
  try {
    await postEntry({
      tenantId: t.tenantId,
      entryId: `custody_transfer:${t.transferId}`,
      entry,
      now: new Date(t.createdAt),
      extraItems: [item, ...alsoWrite.map(asTransactItem), ...historyItems(t.tenantId, null, custodyTransferTransaction(t))],
    });
  } catch (error) {
    if (error instanceof ExtraItemConditionError) throw new Error(`Custody transfer ${t.transferId} is already recorded.`, { cause: error });
    throw error;
  }
}

export const dynamoCustodyTransfers: CustodyTransferRepository = { commit: commitTransfer };

/* ----------------------------------------------------------------------------------------------------- deposits */

const DEPOSIT = 'custody_deposit';

function depositItem(d: CustodyDepositState): Stored {
  return {
    ...keys.custodyDeposit(d.tenantId, d.depositId),
    ...(isFollowedDeposit(d) ? keys.custodyDepositQueue(d.network, d.detectedAt, d.tenantId, d.depositId) : {}),
    ...stateAttributes(DEPOSIT, d),
    tenant_id: d.tenantId,
    account_id: d.accountId,
    status: d.status,
  };
}

/** What a deposit's change writes beside it: the address's `last_deposit_at` once it is credited. */
function lastDepositItem(d: CustodyDepositState): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.custodyAddress(d.tenantId, d.accountId, d.blockchain),
      UpdateExpression: 'SET last_deposit_at = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': d.creditedAt ?? d.updatedAt },
    },
  };
}

async function commitDeposit(previous: CustodyDepositState | null, change: CustodyDepositChange, now: Date): Promise<CustodyDepositState> {
  const d = nextVersion(change.state, previous?.version ?? null);
  await commitAggregate({
    type: DEPOSIT,
    id: d.depositId,
    tenantId: d.tenantId,
    put: versionedPut(depositItem(d), previous?.version ?? null),
    outbox: aggregateOutbox({ type: DEPOSIT, id: d.depositId, tenantId: d.tenantId }, change.events, {}, now),
    items: change.entry ? [lastDepositItem(d)] : [],
    ...(change.entry ? { entry: change.entry } : {}),
    history: { previous: previous ? custodyDepositTransaction(previous) : null, next: custodyDepositTransaction(d) },
    now,
  });
  return d;
}

/** Records a newly seen deposit once (its id is natural): false when it was recorded before. */
async function recordDeposit(change: CustodyDepositChange, now: Date): Promise<boolean> {
  try {
    await commitDeposit(null, change, now);
    return true;
  } catch (error) {
    if (error instanceof ConflictError) return false;
    throw error;
  }
}

async function openDeposits(network: string): Promise<CustodyDepositState[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi3',
    KeyConditionExpression: 'gsi3pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.custodyDepositQueuePartition(network) },
  });
  return items.map((item) => stateOf<CustodyDepositState>(item, DEPOSIT));
}

export const dynamoCustodyDeposits: CustodyDepositRepository = {
  get: (tenantId, depositId) => loadState<CustodyDepositState>(keys.custodyDeposit(tenantId, depositId), DEPOSIT),
  record: recordDeposit,
  save: (previous, change, now) => commitDeposit(previous, change, now),
  open: openDeposits,
};

/* ----------------------------------------------------------------------------------------------------- policies */

export const dynamoCustodyPolicies: CustodyPolicyRepository = {
  async get(tenantId) {
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.custodyPolicy(tenantId), ConsistentRead: true }));
    if (!Item) return NO_REVIEW_POLICY;
    return {
      threshold: Item.threshold === null || Item.threshold === undefined ? null : decimalText(Item.threshold),
      allowlist: Array.isArray(Item.allowlist) ? Item.allowlist.map(String) : null,
    };
  },
  async put(tenantId, policy) {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.custodyPolicy(tenantId),
          type: 'custody_policy',
          threshold: policy.threshold,
          allowlist: policy.allowlist,
          updated_at: new Date().toISOString(),
        },
      }),
    );
  },
};
