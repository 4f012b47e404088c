import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomKeypair } from '../../../infra/local/solana.js';
import { config } from '../../../shared/config/config.js';
import { contractAddress, CURRENCIES } from '../../../shared/domain/currencies.js';
import { associatedTokenAddress } from '../../../shared/chain/solana/address.js';
import { SolanaRpc } from '../../../shared/chain/solana/rpc.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';

/** The local Solana node as a part of the local stack: started, listed in stack.json, in the handlers' environment, stopped. */
describe('local stack: the solana part', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ solana: true, http: false, pollers: false });
  });

  afterAll(() => stack?.stop());

  it('lists the node and its USDT mint in stack.json and gives the handlers SOLANA_RPC_URL and TOKEN_CONTRACTS.USDTSOL', async () => {
    const node = stack.solana;
    expect(node).toBeDefined();
    const url = node?.url as string;
    expect(stack.stackJson.rpcUrls.SOL).toBe(url);
    expect(stack.stackJson.contracts.networks?.SOL?.tokens.USDT).toBe(node?.mint);
    expect(stack.env.SOLANA_RPC_URL).toBe(url);
    expect(JSON.parse(stack.env.TOKEN_CONTRACTS ?? '{}')).toMatchObject({ USDTSOL: node?.mint });
    const onDisk = JSON.parse(await readFile(join(stack.dataDir, 'stack.json'), 'utf8')) as typeof stack.stackJson;
    expect(onDisk.rpcUrls.SOL).toBe(url);
    expect(onDisk.contracts.networks?.SOL?.tokens.USDT).toBe(node?.mint);
    // What a handler reads.
    expect(config().SOLANA_RPC_URL).toBe(url);
    expect(contractAddress(CURRENCIES.USDTSOL, 'local', config().TOKEN_CONTRACTS)).toBe(node?.mint);
  });

  it('serves JSON-RPC with blocks on its own, and mints to any owner', async () => {
    const node = stack.solana;
    if (!node) throw new Error('no solana part');
    const rpc = new SolanaRpc(node.url);
    const owner = randomKeypair().address;
    const signature = await node.mintTo(owner, 7_000_000n);
    // The node's own timer produces the block: wait for it, whatever the pace.
    let status = null;
    for (let i = 0; i < 200 && !status; i++) {
      [status] = await rpc.getSignatureStatuses([signature]);
      if (!status) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toMatchObject({ err: null });
    expect(await rpc.getTokenAccountBalance(associatedTokenAddress(owner, node.mint), 'processed')).toEqual({ amount: 7_000_000n, decimals: 6 });
  });
});

it('stops the Solana node with the stack', async () => {
  const stack = await startTestStack({ solana: true, http: false, pollers: false });
  const url = stack.solana?.url as string;
  expect(await new SolanaRpc(url).getBlockHeight('processed')).toBeGreaterThanOrEqual(0);
  await stack.stop();
  await expect(fetch(url, { method: 'POST', body: '{}' })).rejects.toThrow();
});
