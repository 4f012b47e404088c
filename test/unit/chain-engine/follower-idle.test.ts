import { jest } from '@jest/globals';
import { GetPublicKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { computeAddress, getBytes, SigningKey } from 'ethers';
import { parseConfig } from '../../../shared/config/config.js';
import { encodeSecp256k1Spki } from '../../../shared/chain/signer/der.js';
import { chainTxRuntime } from '../../../shared/runtime/chain-tx.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import type { ChainTxDeps } from '../../../shared/usecases/chain-tx/ports.js';
import { followChainTxs, runFollower, wokenFollowerNetworks } from '../../../shared/usecases/chain-tx/follow-chain-txs.js';

/**
 * The chain-tx follower with nothing in flight: one read per network and out (no lease written, no loop until its
 * deadline), and the hot wallet's public key asked of KMS once per process, however many runs.
 */

/** A store with no open request, every call named; anything else the follower might touch fails the test. */
function idleDeps(): { deps: ChainTxDeps; calls: string[] } {
  const calls: string[] = [];
  const store = new Proxy(
    {},
    {
      get: (_target, name: string) =>
        name === 'listOpen'
          ? async (network: string): Promise<ChainTx[]> => {
              calls.push(`listOpen ${network}`);
              return [];
            }
          : (...args: unknown[]) => {
              calls.push(`${name} ${String(args[0])}`);
              return Promise.resolve(true);
            },
    },
  );
  const unexpected = (): never => {
    throw new Error('no chain call expected');
  };
  const deps = {
    store,
    chain: unexpected,
    signer: { sign: unexpected },
    clock: () => new Date('2026-01-01T00:00:00.000Z'),
    settings: { confirmations: 12, bumpAfterSeconds: 60, caps: { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, retryQueuedAfterSeconds: 30 },
  } as unknown as ChainTxDeps;
  return { deps, calls };
}

describe('chain-tx follower, idle', () => {
  it('a network with no open request: one read, no lease, no loop (the clock never reaches the deadline)', async () => {
    const { deps, calls } = idleDeps();
    const stats = await followChainTxs('ETH', deps, { until: new Date('2026-01-01T00:01:00.000Z'), pollMs: 0 });
    expect(stats).toEqual({ confirmed: 0, reverted: 0, failed: 0, bumped: 0, rebroadcast: 0, processed: 0, waitingForGas: 0 });
    expect(calls).toEqual(['listOpen ETH']);
  });

  it('many runs read the hot wallet public key from KMS once', async () => {
    const key = new SigningKey(`0x${'11'.repeat(32)}`);
    const send = jest.spyOn(KMSClient.prototype, 'send').mockImplementation(async (command: unknown) => {
      if (command instanceof GetPublicKeyCommand) {
        return { KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY', PublicKey: encodeSecp256k1Spki(getBytes(key.publicKey)) };
      }
      throw new Error('unexpected KMS call');
    });
    try {
      const runtime = chainTxRuntime(
        parseConfig({
          STAGE: 'test',
          TABLE_NAME: 'gateway-test',
          AWS_REGION: 'us-east-1',
          HOT_WALLET_KEY_ID: 'hot-key',
          EVM_RPC_URLS: '{"ETH":"http://eth.invalid"}',
        }),
      );
      const balances: string[] = [];
      const { deps, calls } = idleDeps();
      for (let run = 0; run < 5; run++) {
        await runFollower({
          networks: ['ETH', 'POLYGON'],
          deps,
          hotWallet: {
            ...runtime.hotWalletDeps,
            balance: async (network, address) => {
              balances.push(`${network} ${address}`);
              return 10n ** 18n;
            },
            emit: () => undefined,
          },
          until: new Date(Date.now() + 60_000),
          pollMs: 0,
        });
      }
      const address = computeAddress(key.publicKey);
      expect(balances).toHaveLength(10);
      expect(balances.every((b) => b.endsWith(address))).toBe(true);
      expect(send.mock.calls.filter(([command]) => command instanceof GetPublicKeyCommand)).toHaveLength(1);
      // Five runs over two idle networks: ten reads, nothing written.
      expect(calls).toHaveLength(10);
      expect(calls.every((c) => c.startsWith('listOpen '))).toBe(true);
    } finally {
      send.mockRestore();
    }
  });

  it('a woken run follows the networks of the routed chain_tx.requested events, ignoring what is not one', () => {
    const requested = (network: string, requestId: string) =>
      JSON.stringify({
        event_id: `chain_tx:${requestId}:requested`,
        tenant_id: 'platform',
        type: 'chain_tx.requested',
        occurred_at: '2026-01-01T00:00:00.000Z',
        payload: { request_id: requestId, network, reference: `sweep:${requestId}`, purpose: 'sweep' },
      });
    const notOne = JSON.stringify({ event_id: 'x', tenant_id: 't', type: 'chain_tx.confirmed', occurred_at: '2026-01-01T00:00:00.000Z', payload: {} });
    expect(wokenFollowerNetworks([requested('ETH', 'r1'), requested('TRX', 'r2'), requested('ETH', 'r3'), 'not json', notOne]).sort()).toEqual(['ETH', 'TRX']);
    expect(wokenFollowerNetworks([requested('', 'r4')])).toEqual([]);
  });
});

/** A store with one open request on the first listing and none after, whose lease answers as `lease` says. */
function leaseDeps(lease: { held: boolean; refusals: number }): { deps: ChainTxDeps; calls: string[] } {
  const { deps, calls } = idleDeps();
  let listings = 0;
  const store = {
    listOpen: async (network: string): Promise<ChainTx[]> => {
      calls.push(`listOpen ${network}`);
      return listings++ === 0 ? [{ requestId: 'r1' } as ChainTx] : [];
    },
    leaseHeld: async (network: string): Promise<boolean> => {
      calls.push(`leaseHeld ${network}`);
      return lease.held;
    },
    acquireLease: async (network: string): Promise<boolean> => {
      calls.push(`acquireLease ${network}`);
      return lease.refusals-- <= 0;
    },
    releaseLease: async (network: string): Promise<void> => {
      calls.push(`releaseLease ${network}`);
    },
  };
  return { deps: { ...deps, store } as unknown as ChainTxDeps, calls };
}

describe('chain-tx follower, its lease', () => {
  const soon = (ms: number) => new Date(Date.now() + ms);

  it('a woken run leaves a network whose lease is held to its holder: a read, no write', async () => {
    const { deps, calls } = leaseDeps({ held: true, refusals: Infinity });
    expect(await followChainTxs('ETH', deps, { until: soon(60_000), pollMs: 0, woken: true })).toBeNull();
    expect(calls).toEqual(['listOpen ETH', 'leaseHeld ETH']);
  });

  it('a woken run takes a free lease and follows', async () => {
    const { deps, calls } = leaseDeps({ held: false, refusals: 0 });
    expect(await followChainTxs('ETH', deps, { until: soon(60_000), pollMs: 0, woken: true })).not.toBeNull();
    expect(calls).toEqual(['listOpen ETH', 'leaseHeld ETH', 'acquireLease ETH', 'listOpen ETH', 'releaseLease ETH']);
  });

  it('a scheduled run asks again for a held lease and goes on once its holder lets go', async () => {
    const { deps, calls } = leaseDeps({ held: true, refusals: 2 });
    expect(await followChainTxs('ETH', deps, { until: soon(60_000), pollMs: 0, leaseRetryMs: 1 })).not.toBeNull();
    expect(calls).toEqual(['listOpen ETH', 'acquireLease ETH', 'acquireLease ETH', 'acquireLease ETH', 'listOpen ETH', 'releaseLease ETH']);
  });

  it('a scheduled run stops asking when its time would be over', async () => {
    const { deps, calls } = leaseDeps({ held: true, refusals: Infinity });
    expect(await followChainTxs('ETH', deps, { until: soon(50), pollMs: 0, leaseRetryMs: 10 })).toBeNull();
    const asked = calls.filter((c) => c === 'acquireLease ETH').length;
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(asked).toBeLessThanOrEqual(5);
    expect(calls).not.toContain('releaseLease ETH');
  });
});
