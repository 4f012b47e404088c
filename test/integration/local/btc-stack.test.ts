import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';

/** The local Bitcoin node as a part of the local stack: started, listed in stack.json, in the handlers' environment, stopped. */
describe('local stack: the btc part', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({ btc: true, http: false, pollers: false });
  });

  afterAll(() => stack?.stop());

  it('lists the node in stack.json as rpcUrls.BTC and gives the handlers BTC_API_URL and BTC_NETWORK=local', async () => {
    const url = stack.btc?.url as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stack.stackJson.rpcUrls.BTC).toBe(url);
    expect(stack.env.BTC_API_URL).toBe(url);
    expect(stack.env.BTC_NETWORK).toBe('local');
    expect(process.env.BTC_API_URL).toBe(url);
    const onDisk = JSON.parse(await readFile(join(stack.dataDir, 'stack.json'), 'utf8')) as typeof stack.stackJson;
    expect(onDisk.rpcUrls.BTC).toBe(url);
    expect(await (await fetch(`${url}/health`)).text()).toBe('ok');
  });

  it('produces blocks on its own and mines a faucet payment into the next one', async () => {
    const url = stack.btc?.url as string;
    const address = 'bcrt1q9gdzv2wl0cgdrac0mv40lj420axjjgu7dr4jne';
    const res = await fetch(`${url}/_local/fund`, { method: 'POST', body: JSON.stringify({ address, amount: 12_345 }) });
    const { txid } = (await res.json()) as { txid: string };
    let status: { confirmed: boolean } = { confirmed: false };
    for (let i = 0; i < 100 && !status.confirmed; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await (await fetch(`${url}/tx/${txid}/status`)).json()) as { confirmed: boolean };
    }
    expect(status.confirmed).toBe(true);
    const utxos = (await (await fetch(`${url}/address/${address}/utxo`)).json()) as { txid: string; value: number }[];
    expect(utxos).toContainEqual(expect.objectContaining({ txid, value: 12_345 }));
  });
});

it('stops the Bitcoin node with the stack, and leaves it out unless asked', async () => {
  const stack = await startTestStack({ btc: true, http: false, pollers: false });
  const url = stack.btc?.url as string;
  expect((await fetch(`${url}/blocks/tip/height`)).status).toBe(200);
  await stack.stop();
  await expect(fetch(`${url}/blocks/tip/height`)).rejects.toThrow();
  const without = await startTestStack({ http: false, pollers: false });
  try {
    expect(without.btc).toBeUndefined();
    expect(without.stackJson.rpcUrls.BTC).toBeUndefined();
  } finally {
    await without.stop();
  }
});
