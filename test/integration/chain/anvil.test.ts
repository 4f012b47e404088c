import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider, Wallet } from 'ethers';
import { startAnvil } from '../../../infra/local/anvil.js';
import type { AnvilInstance } from '../../../infra/local/anvil.js';

const connect = (anvil: AnvilInstance): JsonRpcProvider =>
  new JsonRpcProvider(anvil.rpcUrl, anvil.chainId, { batchMaxCount: 1, staticNetwork: true, pollingInterval: 20, cacheTimeout: -1 });

describe('startAnvil', () => {
  let dir: string;
  const started: AnvilInstance[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'anvil-test-'));
  });

  afterAll(async () => {
    await Promise.all(started.map((a) => a.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('starts on a free loopback port with the requested chain id, and stops', async () => {
    const anvil = await startAnvil({ chainId: 777 });
    started.push(anvil);
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`);
    const provider = connect(anvil);
    expect((await provider.getNetwork()).chainId).toBe(777n);
    expect(await provider.getBlockNumber()).toBe(0);
    provider.destroy();
    await anvil.close();
    await anvil.close(); // idempotent
    await expect(fetch(anvil.rpcUrl, { method: 'POST' })).rejects.toThrow();
  });

  it('keeps the chain state in a state file across restarts', async () => {
    const stateFile = join(dir, 'nested', 'anvil-state.json');
    const recipient = Wallet.createRandom().address;

    const first = await startAnvil({ stateFile });
    started.push(first);
    const p1 = connect(first);
    const signer = await p1.getSigner(0);
    await (await signer.sendTransaction({ to: recipient, value: 4242n })).wait();
    p1.destroy();
    await first.close();
    expect((await stat(stateFile)).size).toBeGreaterThan(0);

    const second = await startAnvil({ stateFile });
    started.push(second);
    const p2 = connect(second);
    expect(await p2.getBalance(recipient)).toBe(4242n);
    p2.destroy();
    await second.close();
  });

  it('reports a port already in use instead of talking to the wrong node', async () => {
    const first = await startAnvil({ chainId: 1111 });
    started.push(first);
    await expect(startAnvil({ port: first.port, chainId: 2222, readyTimeoutMs: 10_000 })).rejects.toThrow(/anvil|chain id/);
  });
});
