import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CoinState, HotCoin, HotCoinStore, StoredCoin } from '../usecases/coins/ports.js';
import { db, queryAll, tableName } from './client.js';
import { keys } from './keys.js';
import type { TransactItem } from './transact.js';
import { isConditionalCheckFailed, transactWrite, TransactionConditionError } from './transact.js';

/**
 * The hot wallet's coins on a UTXO network (shared/usecases/coins/ports.ts) on the one table: one item per output
 * (`keys.hotCoin`). An available coin is listed in its network's gsi2 partition by value (largest first); a batch's
 * coins in that batch's gsi1 partition, from the moment it reserves them, and they stay there once spent.
 *
 * The rule that keeps a coin from being spent twice lives in the conditions: `reserve` is ONE TransactWriteItems with
 * a condition per coin (still available, or already this batch's: a retried reservation is the same reservation), so
 * of two batches racing for a coin exactly one gets it and the other reserves nothing. Lists read indexes (eventually
 * consistent): a coin listed as available may be gone by the time it is reserved, which `reserve` then refuses.
 */

/** DynamoDB's limit of items in one TransactWriteItems. */
export const MAX_COINS_PER_RESERVATION = 100;

const STATE = '#state';
const names = { [STATE]: 'state' };

type CoinRef = Pick<HotCoin, 'network' | 'txid' | 'vout'>;

function coinItem(coin: HotCoin): Record<string, unknown> {
  return {
    ...keys.hotCoin(coin.network, coin.txid, coin.vout),
    ...keys.hotCoinAvailable(coin.network, coin.value, coin.txid, coin.vout),
    network: coin.network,
    txid: coin.txid.toLowerCase(),
    vout: coin.vout,
    value: coin.value.toString(),
    tag: coin.tag.toLowerCase(),
    source: coin.source,
    state: 'available' satisfies CoinState,
  };
}

function coinOfItem(item: Record<string, unknown>): StoredCoin {
  return {
    network: String(item.network),
    txid: String(item.txid),
    vout: Number(item.vout),
    value: BigInt(String(item.value)),
    tag: String(item.tag),
    source: String(item.source),
    state: item.state as CoinState,
    ...(typeof item.spentBy === 'string' ? { spentBy: item.spentBy } : {}),
  };
}

function checkCoin(coin: HotCoin): void {
  if (!/^[0-9a-fA-F]{64}$/.test(coin.txid)) throw new TypeError(`A coin's txid is 32 bytes of hex: ${coin.txid}`);
  if (!Number.isInteger(coin.vout) || coin.vout < 0) throw new TypeError(`A coin's output index is a non-negative integer: ${coin.vout}`);
  if (coin.value <= 0n) throw new TypeError(`A coin's value is positive: ${coin.value}`);
  if (!/^[0-9a-fA-F]{64}$/.test(coin.tag)) throw new TypeError(`A coin's tag is 32 bytes of hex: ${coin.tag}`);
}

/** The batch's reservation of one coin: available before, or already this batch's (a retry). */
function reservation(coin: CoinRef, batch: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.hotCoin(coin.network, coin.txid, coin.vout),
      UpdateExpression: `SET ${STATE} = :reserved, spentBy = :batch, gsi1pk = :g1pk, gsi1sk = :g1sk REMOVE gsi2pk, gsi2sk`,
      ConditionExpression: `${STATE} = :available OR (${STATE} = :reserved AND spentBy = :batch)`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: {
        ':reserved': 'reserved',
        ':available': 'available',
        ':batch': batch,
        ...batchListValues(coin, batch),
      },
    },
  };
}

/** The values of `gsi1pk = :g1pk, gsi1sk = :g1sk`: the coin in its batch's list. */
function batchListValues(coin: CoinRef, batch: string): Record<string, string> {
  const k = keys.hotCoinOfBatch(coin.network, batch, coin.txid, coin.vout);
  return { ':g1pk': k.gsi1pk, ':g1sk': k.gsi1sk };
}

/** The values of `gsi2pk = :g2pk, gsi2sk = :g2sk`: the coin in its network's available list. */
function availableListValues(coin: CoinRef, value: bigint): Record<string, string> {
  const k = keys.hotCoinAvailable(coin.network, value, coin.txid, coin.vout);
  return { ':g2pk': k.gsi2pk, ':g2sk': k.gsi2sk };
}

/** One coin's update, its condition failing quietly (the coin is not in the state the change applies to). */
async function updateCoin(input: ConstructorParameters<typeof UpdateCommand>[0]): Promise<boolean> {
  try {
    await db().send(new UpdateCommand(input));
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

export const dynamoHotCoins: HotCoinStore = {
  async add(coins) {
    coins.forEach(checkCoin);
    await Promise.all(
      coins.map(async (coin) => {
        try {
          await db().send(new PutCommand({ TableName: tableName(), Item: coinItem(coin), ConditionExpression: 'attribute_not_exists(pk)' }));
        } catch (error) {
          // Recorded before (a retried credit, a re-read block): left as it is, whatever its state now.
          if (!isConditionalCheckFailed(error)) throw error;
        }
      }),
    );
  },

  async available(network, limit) {
    if (limit <= 0) return [];
    const items = await queryAll(
      {
        TableName: tableName(),
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.hotCoinsAvailablePartition(network) },
        ScanIndexForward: false,
        Limit: Math.min(limit, 1000),
      },
      limit,
    );
    return items.map(coinOfItem).filter((c) => c.state === 'available');
  },

  async reserve(coins, batch) {
    if (coins.length === 0) return true;
    if (coins.length > MAX_COINS_PER_RESERVATION) {
      throw new RangeError(`A batch reserves at most ${MAX_COINS_PER_RESERVATION} coins in one transaction, not ${coins.length}`);
    }
    const distinct = new Set(coins.map((c) => keys.hotCoin(c.network, c.txid, c.vout).pk));
    if (distinct.size !== coins.length) throw new TypeError('A reservation names a coin twice');
    try {
      await transactWrite(coins.map((c) => reservation(c, batch)));
      return true;
    } catch (error) {
      if (error instanceof TransactionConditionError) return false;
      throw error;
    }
  },

  async ofBatch(network, batch) {
    const items = await queryAll({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.hotCoinsOfBatchPartition(network, batch) },
    });
    return items.map(coinOfItem).filter((c) => c.spentBy === batch);
  },

  async markSpent(coins, batch) {
    // The chain has spoken: the batch's transaction is in a block, so its inputs are spent by it, whatever the store
    // thought (a coin released and reserved again by a batch that can now never confirm included).
    await Promise.all(
      coins.map((coin) =>
        updateCoin({
          TableName: tableName(),
          Key: keys.hotCoin(coin.network, coin.txid, coin.vout),
          UpdateExpression: `SET ${STATE} = :spent, spentBy = :batch, gsi1pk = :g1pk, gsi1sk = :g1sk REMOVE gsi2pk, gsi2sk`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':spent': 'spent', ':batch': batch, ...batchListValues(coin, batch) },
        }),
      ),
    );
  },

  async release(coins, batch) {
    await Promise.all(
      coins.map(async (coin) => {
        const key = keys.hotCoin(coin.network, coin.txid, coin.vout);
        const value = await coinValue(key);
        if (value === null) return;
        // Only a coin this batch still holds reserved: one spent, or reserved by another batch since, stays as it is.
        await updateCoin({
          TableName: tableName(),
          Key: key,
          UpdateExpression: `SET ${STATE} = :available, gsi2pk = :g2pk, gsi2sk = :g2sk REMOVE spentBy, gsi1pk, gsi1sk`,
          ConditionExpression: `${STATE} = :reserved AND spentBy = :batch`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: {
            ':available': 'available',
            ':reserved': 'reserved',
            ':batch': batch,
            ...availableListValues(coin, value),
          },
        });
      }),
    );
  },
};

/** A coin's value as stored (its gsi2 sort key is rebuilt from it on release); null when no such coin. */
async function coinValue(key: { pk: string; sk: string }): Promise<bigint | null> {
  const answer = await db().send(new GetCommand({ TableName: tableName(), Key: key, ProjectionExpression: '#v', ExpressionAttributeNames: { '#v': 'value' } }));
  return answer.Item ? BigInt(String(answer.Item.value)) : null;
}
