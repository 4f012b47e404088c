import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { BlockRef, EvmChainPort, TransferLog } from '../../../shared/chain/evm/scanner.js';
import { parseConfig } from '../../../shared/config/config.js';
import { scannerRuntime } from '../../../shared/runtime/payments.js';
import { db, tableName } from '../../../shared/store/client.js';
import { keys } from '../../../shared/store/keys.js';
import { acquireLease, leaseHeld, networkWatching, releaseLease } from '../../../shared/store/scanner.js';
import { traceCalls } from '../../../shared/store/call-trace.js';
import { evmDepositSource } from '../../../shared/chain/evm/deposit-source.js';
import type { ScannerDeps } from '../../../shared/usecases/scanner/scan.js';
import { initCursor, scanOnce } from '../../../shared/usecases/scanner/scan.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { putFixedRates } from './support.js';

/**
 * The scanner's cost grows with blocks, not with watched addresses: the same RPC calls for a block range
 * whether 10 or 1,000 deposit addresses are watched (one eth_getLogs per range, then one batched lookup of
 * the logs' recipients). And one scanner per network: the lease.
 */
const TOKEN = '0x00000000000000000000000000000000000000aa';
let table: TestTable;
let payments: ScannerDeps;

/** An in-memory chain of `height` blocks whose every block has one Transfer to an unwatched address. */
function fakeChain(height: number): EvmChainPort {
  let calls = 0;
  const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
  return {
    get calls() {
      return calls;
    },
    blockNumber: async () => (calls++, height),
    block: async (n: number): Promise<BlockRef | null> => (calls++, n <= height ? { number: n, hash: hash(n), parentHash: hash(n - 1), timestamp: n } : null),
    transferLogs: async (from: number, to: number): Promise<TransferLog[]> => {
      calls++;
      return Array.from({ length: to - from + 1 }, (_, i) => ({
        token: TOKEN,
        from: `0x${'01'.repeat(20)}`,
        to: `0x${'02'.repeat(20)}`,
        value: 1n,
        txHash: hash(1000 + from + i),
        logIndex: 0,
        blockNumber: from + i,
        blockHash: hash(from + i),
      }));
    },
    transferLogsTo: async () => (calls++, []),
    balance: async () => (calls++, 0n),
    nativeTransfers: async () => (calls++, []),
    close: () => undefined,
  };
}

async function watch(count: number, offset: number): Promise<void> {
  for (let i = 0; i < count; i += 25) {
    const items = Array.from({ length: Math.min(25, count - i) }, (_, j) => {
      const address = `0x${(offset + i + j + 1).toString(16).padStart(40, '0')}`;
      return {
        PutRequest: {
          Item: {
            ...keys.depositAddress('evm', address),
            type: 'deposit_address',
            tenant_id: 't',
            payment_id: `p${offset + i + j}`,
            currency: 'USDTERC20',
            address,
          },
        },
      };
    });
    await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: items } }));
  }
}

beforeAll(async () => {
  table = await startTestTable();
  payments = scannerRuntime(
    parseConfig({
      ...process.env,
      FORWARDER_FACTORIES: JSON.stringify({ ETH: '0x1111111111111111111111111111111111111111' }),
      // Scanned through the test's chain port; the URL only makes ETH a network this deployment serves.
      EVM_RPC_URLS: JSON.stringify({ ETH: 'http://127.0.0.1:9/' }),
      TOKEN_CONTRACTS: JSON.stringify({ USDTERC20: TOKEN }),
    }),
  );
  await putFixedRates();
});

afterAll(async () => {
  await table?.stop();
});

describe('chain scanner', () => {
  it('makes the same RPC calls for a range with 10 or 1,000 watched addresses', async () => {
    const sweep = { requestSweep: async () => ({ status: 'submitted' as const }) };
    const calls: number[] = [];
    let watched = 0;
    for (const count of [10, 1000]) {
      await watch(count - watched, watched);
      watched = count;
      const chain = fakeChain(count === 10 ? 100 : 200);
      const deps = { ...payments, source: evmDepositSource(chain), sweep, maxRange: 100 };
      await initCursor('ETH', count === 10 ? 0 : 100, deps);
      const before = chain.calls;
      const report = await scanOnce('ETH', deps);
      expect([report.from, report.to, report.logs]).toEqual(count === 10 ? [1, 100, 100] : [101, 200, 100]);
      calls.push(chain.calls - before);
    }
    expect(calls[0]).toBe(calls[1]);
    expect(calls[0]).toBeLessThanOrEqual(5);
  });

  it('one scanner per network: the lease', async () => {
    const now = new Date();
    const until = new Date(now.getTime() + 60_000);
    expect(await acquireLease('POLYGON', 'a', now, until)).toBe(true);
    expect(await acquireLease('POLYGON', 'b', now, until)).toBe(false);
    expect(await acquireLease('POLYGON', 'a', now, until)).toBe(true);
    expect(await acquireLease('POLYGON', 'b', new Date(until.getTime() + 1), new Date(until.getTime() + 60_000))).toBe(true);
    await releaseLease('POLYGON', 'b');
    expect(await acquireLease('POLYGON', 'a', now, until)).toBe(true);
  });

  it('tells whether a lease is held at a time, without writing', async () => {
    const now = new Date();
    const until = new Date(now.getTime() + 60_000);
    expect(await leaseHeld('BASE', now)).toBe(false);
    expect(await acquireLease('BASE', 'a', now, until)).toBe(true);
    expect([await leaseHeld('BASE', now), await leaseHeld('BASE', new Date(until.getTime() + 1))]).toEqual([true, false]);
    await releaseLease('BASE', 'a');
    expect(await leaseHeld('BASE', now)).toBe(false);
  });
});

describe('networkWatching (whether a scanner loops or runs one pass)', () => {
  const queued = (pk: string, id: string) => ({
    PutRequest: { Item: { pk: `TEST#${id}`, sk: 'TEST', type: 'test', gsi3pk: pk, gsi3sk: `2026-01-01T00:00:00.000Z#t#${id}` } },
  });

  it('asks the four work queues with single-item queries, nothing else, and says whether any holds an item', async () => {
    const trace = traceCalls();
    try {
      expect(await networkWatching('BASE')).toBe(false);
      expect(trace.calls().map((c) => [c.command, c.input.Limit, c.input.Select])).toEqual(Array.from({ length: 4 }, () => ['QueryCommand', 1, 'COUNT']));
      for (const [pk, id] of [
        [keys.custodyDepositQueuePartition('BASE'), 'custody'],
        [keys.paymentQueuePartition({ kind: 'waiting', network: 'BASE', asset: 'native' }), 'native'],
        [keys.paymentQueuePartition({ kind: 'waiting', network: 'BASE', asset: 'token' }), 'token'],
        [keys.paymentQueuePartition({ kind: 'open', network: 'BASE' }), 'open'],
      ] as const) {
        await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: [queued(pk, id)] } }));
        trace.reset();
        expect([id, await networkWatching('BASE')]).toEqual([id, true]);
        // The first hit ends the questions: an open payment is found with one query.
        if (id === 'open') expect(trace.calls()).toHaveLength(1);
      }
      expect(await networkWatching('ARB')).toBe(false);
    } finally {
      trace.stop();
    }
  });
});
