import { Contract, JsonRpcProvider } from 'ethers';
import { ERC20_ABI } from '../../../shared/chain/evm/abi.js';
import { APPROVAL_CHECK_MINUTES } from '../../../shared/domain/subscriptions.js';
import { dynamoTenantClocks } from '../../../shared/store/subscriptions.js';
import { buildContractsOutOfProcess } from '../chain/contracts-build.js';
import { putFixedRates, tenantWithToken } from '../payments/support.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import { bearerApi } from '../../support/http-client.js';
import { fundedWallet } from '../../support/local-wallet.js';

/**
 * A pull subscription on the local stack, every part its own: the collector the stack deploys on its anvil chains,
 * the subscription advancer, the chain-tx engine signing with the hot wallet's key on the local KMS, the follower, the
 * event router and chain-results. The stack's schedules run every 10 s instead of every minute (the pollers'
 * `schedule.intervalMs`) and the tenant's test clock skips the minute before the mandate is looked at again, so the
 * test waits for no minute; nothing else differs from `npm start`.
 */
const TIMEOUT = 300_000;

let stack: TestStack;
let merchant: { tenantId: string; bearer: string };
let eth: JsonRpcProvider;

const api = bearerApi(
  () => stack.apiUrl,
  () => merchant.bearer,
);

beforeAll(async () => {
  await buildContractsOutOfProcess();
  stack = await startTestStack({ anvil: true, contracts: true }, { schedule: { intervalMs: () => 10_000 } });
  await putFixedRates();
  merchant = await tenantWithToken('Pull subscription merchant');
  eth = new JsonRpcProvider(stack.stackJson.rpcUrls.ETH, undefined, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 100 });
}, TIMEOUT);

afterAll(async () => {
  eth?.destroy();
  await stack?.stop();
}, TIMEOUT);

describe('a pull subscription on the local stack', () => {
  it(
    'activates on the wallet’s approval and authorisation and its first period is charged through the chain-tx engine, signed by the hot wallet’s KMS key',
    async () => {
      const usdt = (JSON.parse(stack.env.TOKEN_CONTRACTS ?? '{}') as Record<string, string>).USDTERC20 as string;
      // The subscriber: an ordinary wallet the test owns, with gas and test USDT.
      const wallet = await fundedWallet(eth, usdt, 100_000_000n);
      const erc20 = new Contract(usdt, ERC20_ABI, eth);
      const balanceOf = async (address: string) => (await erc20.getFunction('balanceOf')(address)) as bigint;

      const plan = await api('POST', '/plans/', { name: 'Pulled monthly', amount: '20', price_currency: 'USD', currency: 'USDTERC20', interval: 'month' });
      expect([plan.status, plan.body.error]).toEqual([201, undefined]);
      const made = await api('POST', '/subscriptions/', {
        plan_id: plan.body.id,
        customer_reference: 'pull-local',
        collection: 'pull',
        wallet_address: wallet.address,
      });
      const setup = made.body.setup as { token: string; payee: string; calls: Record<'approve' | 'authorize', { to: string; data: string }> };
      expect([made.status, made.body.status, setup.token.toLowerCase()]).toEqual([201, 'incomplete', usdt.toLowerCase()]);
      const payeeBefore = await balanceOf(setup.payee);
      const mainUsdt = async () => Number(((await api('GET', '/user/balances/')).body.account as Record<string, { amount: string }>).USDTERC20?.amount ?? 0);
      const before = await mainUsdt();
      for (const call of [setup.calls.approve, setup.calls.authorize]) await (await wallet.sendTransaction(call)).wait();
      // The advancer looks again at an incomplete subscription's mandate a minute after its last change
      // (APPROVAL_CHECK_MINUTES): the tenant's test clock, which the local stack honours, skips that minute.
      await dynamoTenantClocks(true).set(merchant.tenantId, APPROVAL_CHECK_MINUTES * 60_000);

      // The advancer (every 10 s here) sees the mandate, opens the period with its charge and sends the batch; chain-tx
      // signs it with the KMS key, the follower confirms it, chain-results credits the merchant.
      const deadline = Date.now() + 240_000;
      let cycles: Array<{ status: string }> = [];
      while (Date.now() < deadline) {
        cycles = (await api('GET', `/subscriptions/${made.body.id}/cycles/`)).body.results as Array<{ status: string }>;
        if (cycles[0]?.status === 'paid') break;
        await new Promise((r) => setTimeout(r, 1000));
      }
      expect(cycles.map((c) => c.status)).toEqual(['paid']);
      expect((await api('GET', `/subscriptions/${made.body.id}/`)).body.status).toBe('active');
      expect(await balanceOf(wallet.address)).toBe(100_000_000n - 20_000_000n);
      expect((await balanceOf(setup.payee)) - payeeBefore).toBe(20_000_000n);
      // The plan's 20 less the tenant's fee (1 %), credited to the main account.
      expect((await mainUsdt()) - before).toBeCloseTo(19.8, 6);
    },
    TIMEOUT,
  );
});
