import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { resetConfig } from '../../../shared/config/config.js';
import type { ChainTx, ChainTxAttempt } from '../../../shared/domain/chain-tx.js';
import { CHAIN_TX, InvalidChainTxTransitionError, openChainTx, requestedPayload, transition } from '../../../shared/domain/chain-tx.js';
import { ConflictError } from '../../../shared/domain/errors.js';
import { stateOf } from '../../../shared/store/aggregate.js';
import { chainTxOf, dynamoChainTxStore, nextNonce } from '../../../shared/store/chain-tx.js';
import { db, tableName } from '../../../shared/store/client.js';
import { keys } from '../../../shared/store/keys.js';
import { integer } from '../../../shared/store/values.js';
import { lostRace } from '../../../shared/usecases/chain-tx/changes.js';
import { startTestTable } from '../../support/dynamodb.js';
import type { TestTable } from '../../support/dynamodb.js';
import { outboxRecord } from '../../support/outbox.js';

/**
 * The chain-tx repository on DynamoDB Local: a request is stored as every aggregate (shared/store/aggregate.ts),
 * the version is the repository's, a lost race is the domain's ConflictError, and a change's events and released
 * nonce are written with it.
 */
const T0 = new Date('2026-01-01T00:00:00Z');
const WALLET = { keyId: 'k', address: '0x0000000000000000000000000000000000000001' };

let table: TestTable;

beforeAll(async () => {
  table = await startTestTable();
  resetConfig();
}, 120_000);

afterAll(async () => {
  await table?.stop();
});

let n = 0;
const draft = () => ({
  network: 'ETH',
  reference: `w-${++n}`,
  purpose: 'withdrawal',
  tenantId: 't1',
  wallet: WALLET,
  to: '0x0000000000000000000000000000000000000002',
  data: '0xa9059cbb',
  value: 123_456_789_012_345_678_901_234_567_890n,
  gasLimit: 90_000n,
  items: ['t1:a', 't1:b'],
});

const attempt = (i: number, fees: ChainTxAttempt['fees'] = { type: 2, maxFeePerGas: 10n ** 30n + BigInt(i), maxPriorityFeePerGas: 7n }): ChainTxAttempt => ({
  hash: `0x${i.toString(16).padStart(64, '0')}`,
  raw: `0x02${'ab'.repeat(40)}`,
  fees,
  gasLimit: 90_000n,
  signedAt: T0.toISOString(),
});

async function item(tx: Pick<ChainTx, 'network' | 'reference'>): Promise<Record<string, unknown>> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.chainTx(tx.network, tx.reference), ConsistentRead: true }));
  if (!out.Item) throw new Error('no item');
  return out.Item;
}

describe('the chain-tx store', () => {
  it('creates a request once, as an aggregate item with its announcement, and reads it back exactly', async () => {
    const tx = openChainTx(draft(), T0);
    const created = await dynamoChainTxStore.create(tx, { eventType: 'chain_tx.requested', payload: requestedPayload(tx) });
    expect(created).toEqual({ ...tx, version: 1 });
    expect(await dynamoChainTxStore.create(tx)).toBeNull();
    expect(await dynamoChainTxStore.get(tx.requestId)).toEqual(created);

    const stored = await item(tx);
    expect(integer(stored.version)).toBe(1);
    expect(stored).toMatchObject({ type: CHAIN_TX, request_id: tx.requestId, status: 'queued', tenant_id: 't1', gsi3pk: 'CHAINTX#ETH#OPEN' });
    expect(stateOf<Record<string, unknown>>(stored, CHAIN_TX)).toMatchObject({ value: '123456789012345678901234567890', gasLimit: '90000' });
    expect(chainTxOf(stored)).toEqual(created);
    expect(await outboxRecord(`chain_tx:${tx.requestId}:chain_tx.requested`)).toMatchObject({ type: 'chain_tx.requested', payload: requestedPayload(tx) });
  });

  it('bumps the version on every save and refuses a save of a version read before (a ConflictError, a lost race)', async () => {
    const tx = (await dynamoChainTxStore.create(openChainTx(draft(), T0))) as ChainTx;
    const allocated = await dynamoChainTxStore.allocateNonce(tx, async () => 5, T0);
    expect([allocated.status, allocated.nonce, allocated.version]).toEqual(['allocated', 5, 2]);
    expect(await nextNonce('ETH', WALLET.address)).toBe(6);

    const signed = await dynamoChainTxStore.save(allocated, transition(allocated, { type: 'signed', attempt: attempt(1) }, T0));
    expect(signed.version).toBe(3);
    const stale = dynamoChainTxStore.save(allocated, transition(allocated, { type: 'blocked', reason: 'insufficient_gas' }, T0));
    await expect(stale).rejects.toBeInstanceOf(ConflictError);
    expect(lostRace(await stale.catch((e: unknown) => e))).toBe(true);
    await expect(dynamoChainTxStore.allocateNonce(tx, async () => 0, T0)).rejects.toBeInstanceOf(ConflictError);
    // A refusal of the lifecycle is a ConflictError too, but not a lost race: nothing to re-read.
    const refused = (() => {
      try {
        return transition(signed, { type: 'cancel' }, T0);
      } catch (error) {
        return error;
      }
    })();
    expect([refused instanceof InvalidChainTxTransitionError, lostRace(refused)]).toEqual([true, false]);
    expect(await dynamoChainTxStore.get(tx.requestId)).toEqual(signed);
  });

  it('writes a final transition with its event and leaves the open-requests index', async () => {
    let tx = (await dynamoChainTxStore.create(openChainTx(draft(), T0))) as ChainTx;
    tx = await dynamoChainTxStore.allocateNonce(tx, async () => 0, T0);
    tx = await dynamoChainTxStore.save(tx, transition(tx, { type: 'signed', attempt: attempt(2) }, T0));
    tx = await dynamoChainTxStore.save(tx, transition(tx, { type: 'broadcast' }, T0));
    tx = await dynamoChainTxStore.save(tx, transition(tx, { type: 'bumped', attempt: attempt(3, { type: 0, gasPrice: 10n ** 25n }) }, T0));
    expect(await dynamoChainTxStore.listOpen('ETH')).toContainEqual(tx);
    const mined = { hash: attempt(2).hash, blockNumber: 9, status: 1 as const, gasUsed: 2n ** 70n };
    const change = transition(tx, { type: 'mined', mined }, T0);
    const done = await dynamoChainTxStore.save(tx, change);
    expect(await dynamoChainTxStore.get(tx.requestId)).toEqual(done);
    expect(done).toMatchObject({ status: 'confirmed', mined, version: tx.version + 1 });
    expect((await item(tx)).gsi3pk).toBeUndefined();
    expect((await dynamoChainTxStore.listOpen('ETH')).map((t) => t.requestId)).not.toContain(tx.requestId);
    const event = await outboxRecord(`chain_tx:${tx.requestId}:chain_tx.confirmed`);
    expect(event).toMatchObject({
      type: 'chain_tx.confirmed',
      tenant_id: 't1',
      payload: { request_id: tx.requestId, tx_hash: mined.hash, gas_used: mined.gasUsed.toString() },
    });
  });

  it('returns a cancelled request’s nonce to the free-list in the cancellation’s transaction, and gives it out first', async () => {
    const wallet = { keyId: 'k2', address: '0x0000000000000000000000000000000000000003' };
    const first = (await dynamoChainTxStore.create(openChainTx({ ...draft(), wallet }, T0))) as ChainTx;
    const allocated = await dynamoChainTxStore.allocateNonce(first, async () => 40, T0);
    const cancelled = await dynamoChainTxStore.save(allocated, transition(allocated, { type: 'cancel' }, T0));
    expect(cancelled).toMatchObject({ status: 'cancelled', nonce: 40, version: 3 });
    const free = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': keys.nonceFreePrefix('ETH', wallet.address).pk, ':p': 'FREE#' },
        ConsistentRead: true,
      }),
    );
    expect(free.Items?.map((i) => [integer(i.nonce), i.released_by])).toEqual([[40, first.requestId]]);
    const second = (await dynamoChainTxStore.create(openChainTx({ ...draft(), wallet }, T0))) as ChainTx;
    expect((await dynamoChainTxStore.allocateNonce(second, async () => 0, T0)).nonce).toBe(40);
    expect(await nextNonce('ETH', wallet.address)).toBe(41);
  });
});
