import { jest } from '@jest/globals';
import { GetPublicKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { computeAddress, getBytes, SigningKey } from 'ethers';
import { parseConfig } from '../../../shared/config/config.js';
import { encodeSecp256k1Spki } from '../../../shared/chain/signer/der.js';
import { chainTxRuntime } from '../../../shared/runtime/chain-tx.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import type { ChainTxDeps } from '../../../shared/usecases/chain-tx/ports.js';
import { followChainTxs, runFollower } from '../../../shared/usecases/chain-tx/follow-chain-txs.js';

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
});
