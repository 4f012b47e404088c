import { Contract, JsonRpcProvider, parseEther } from 'ethers';
import { ERC20_ABI } from '../../../shared/chain/evm/abi.js';
import { CURRENCY_LIST, NETWORKS } from '../../../shared/domain/currencies.js';
import { toBaseUnits } from '../../../shared/domain/money.js';
import { devPay, localChainsOf } from '../../../infra/local/dev/dev-pay.js';
import { buildContractsOutOfProcess } from '../chain/contracts-build.js';
import { putFixedRates, tenantWithToken } from '../payments/support.js';
import { startTestStack } from '../../support/stack.js';
import type { TestStack } from '../../support/stack.js';
import { startReceiver } from '../webhooks/support.js';
import { bearerApi } from '../../support/http-client.js';
import { fundedWallet } from '../../support/local-wallet.js';

/**
 * The local chains as `npm start` runs them: one anvil per EVM network of the catalogue with the network's real
 * chain id, the forwarder factory at one address on all of them, each network's test tokens with the catalogue's
 * decimals, every network in the handlers' environment, and interval mining, so that a payment paid by one
 * ordinary transfer completes with nobody mining.
 */
const TIMEOUT = 300_000;
const EVM = Object.values(NETWORKS).filter((n) => n.family === 'evm');
const EVM_CURRENCIES = CURRENCY_LIST.filter((c) => c.family === 'evm');

let stack: TestStack;
let merchant: { tenantId: string; bearer: string };
const providers = new Map<string, JsonRpcProvider>();

const provider = (network: string): JsonRpcProvider => {
  let p = providers.get(network);
  if (!p) {
    p = new JsonRpcProvider(stack.stackJson.rpcUrls[network], undefined, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 100 });
    providers.set(network, p);
  }
  return p;
};

const api = bearerApi(
  () => stack.apiUrl,
  () => merchant.bearer,
);

async function newPayment(currency: string, extra: Record<string, unknown> = {}): Promise<{ id: string; address: string; amount: string }> {
  const res = await api('POST', '/payments/', { amount: '25', currency, ...extra });
  expect([currency, res.status]).toEqual([currency, 201]);
  return { id: res.body.transaction_id as string, address: res.body.address as string, amount: res.body.amount_crypto as string };
}

/** Polls GET /payments/{id}/ until the payment is `completed` (or gives the last status seen). */
async function settled(id: string, timeoutMs = 180_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = (await api('GET', `/payments/${id}/`)).body.status as string;
    if (last === 'completed') return last;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return last;
}

beforeAll(async () => {
  await buildContractsOutOfProcess();
  // Every part, with the stack's default mining (what `npm start` runs).
  stack = await startTestStack({ anvil: true, contracts: true, tron: true });
  await putFixedRates();
  merchant = await tenantWithToken('Local chains merchant');
}, TIMEOUT);

afterAll(async () => {
  for (const p of providers.values()) p.destroy();
  await stack?.stop();
}, TIMEOUT);

describe('one local chain per EVM network', () => {
  it(
    'runs every EVM network of the catalogue on its own chain with its real chain id',
    async () => {
      expect(Object.keys(stack.stackJson.rpcUrls).sort()).toEqual([...EVM.map((n) => n.code), 'TRX'].sort());
      expect(Object.keys(JSON.parse(stack.env.EVM_RPC_URLS ?? '{}') as object).sort()).toEqual(EVM.map((n) => n.code).sort());
      for (const network of EVM) {
        expect([network.code, network.chainId.local]).toEqual([network.code, network.chainId.mainnet]);
        const id = Number(await provider(network.code).send('eth_chainId', []));
        expect([network.code, id]).toEqual([network.code, network.chainId.mainnet]);
      }
    },
    TIMEOUT,
  );

  it(
    'deploys the forwarder factory at the same address on every chain, and configures every network in the environment',
    async () => {
      const factory = stack.stackJson.contracts.forwarderFactory as string;
      const factories = JSON.parse(stack.env.FORWARDER_FACTORIES ?? '{}') as Record<string, string>;
      for (const network of EVM) {
        expect([network.code, factories[network.code]]).toEqual([network.code, factory]);
        expect([network.code, (await provider(network.code).getCode(factory)) !== '0x']).toEqual([network.code, true]);
      }
    },
    TIMEOUT,
  );

  it(
    "deploys each network's tokens with the catalogue's decimals, and funds the hot wallet with the native coin and a float of each",
    async () => {
      const tokens = JSON.parse(stack.env.TOKEN_CONTRACTS ?? '{}') as Record<string, string>;
      const hotWallet = stack.stackJson.contracts.hotWallet as string;
      for (const currency of EVM_CURRENCIES) {
        const chain = provider(currency.network);
        if (currency.native) {
          expect([currency.code, (await chain.getBalance(hotWallet)) >= parseEther('10')]).toEqual([currency.code, true]);
          continue;
        }
        const address = tokens[currency.code] as string;
        expect([currency.code, address]).toEqual([currency.code, stack.stackJson.contracts.networks?.[currency.network]?.tokens[currency.token]]);
        const erc20 = new Contract(address, ERC20_ABI, chain);
        expect([currency.code, Number(await erc20.getFunction('decimals')())]).toEqual([currency.code, currency.decimals]);
        const float = 1_000_000n * 10n ** BigInt(currency.decimals);
        expect([currency.code, ((await erc20.getFunction('balanceOf')(hotWallet)) as bigint) >= float / 2n]).toEqual([currency.code, true]);
      }
    },
    TIMEOUT,
  );

  it(
    '`dev pay` pays a payment of every EVM currency on its own chain, and of USDTTRC20, and each completes',
    async () => {
      const chains = localChainsOf(stack.stackJson);
      const codes = [...EVM_CURRENCIES.filter((c) => c.enabled.payments).map((c) => c.code), 'USDTTRC20'];
      const payments = await Promise.all(codes.map((code) => newPayment(code)));
      // One payer account per chain: pay one after another.
      for (const [i, payment] of payments.entries()) {
        const paid = await devPay(payment.id, undefined, chains);
        expect([paid.currency, paid.address]).toEqual([codes[i], payment.address]);
      }
      const statuses = await Promise.all(payments.map((p) => settled(p.id)));
      expect(Object.fromEntries(codes.map((code, i) => [code, statuses[i]]))).toEqual(Object.fromEntries(codes.map((code) => [code, 'completed'])));
    },
    TIMEOUT,
  );
});

describe('interval mining', () => {
  it(
    'a payment paid by one plain ERC-20 transfer from an ordinary wallet completes on its own',
    async () => {
      const chain = provider('ETH');
      const usdt = (JSON.parse(stack.env.TOKEN_CONTRACTS ?? '{}') as Record<string, string>).USDTERC20 as string;
      // An ordinary wallet, funded beforehand.
      const wallet = await fundedWallet(chain, usdt, 100_000_000n);

      const payment = await newPayment('USDTERC20');
      await (new Contract(usdt, ERC20_ABI, wallet).getFunction('transfer')(payment.address, toBaseUnits(payment.amount, 6)) as Promise<unknown>);
      // Nothing else: no block mined by hand, no other transaction.
      expect(await settled(payment.id)).toBe('completed');
    },
    TIMEOUT,
  );
});

describe('a wallet-scoped payment', () => {
  it(
    'paid with `dev pay` credits its wallet, not main, and wallet.balance_changed reaches a wallet.all subscription',
    async () => {
      const receiver = await startReceiver(() => 200);
      try {
        const subscribed = await api('POST', '/user/webhooks', { url: receiver.url, event_types: ['wallet.all'] });
        expect(subscribed.status).toBe(200);
        const wallet = (await api('POST', '/wallets/', { name: 'Seller', external_id: 'seller-chains' })).body as { id: number; wallet_id: string };
        const mainBefore = (await api('GET', '/user/balances/')).body.balances as Record<string, unknown>;

        const payment = await newPayment('USDTPOLYGON', { wallet_id: wallet.wallet_id });
        await devPay(payment.id, undefined, localChainsOf(stack.stackJson));
        expect(await settled(payment.id)).toBe('completed');
        const credited = (await api('GET', `/payments/${payment.id}/`)).body.merchant_received as string;

        const shown = (await api('GET', `/wallets/${wallet.id}/`)).body.balances as { currency: string; amount: string; available_balance: string }[];
        expect(shown.map((b) => [b.currency, Number(b.amount), Number(b.available_balance)])).toEqual([['USDTPOLYGON', Number(credited), Number(credited)]]);
        expect(Number(credited)).toBeGreaterThan(24);
        expect((await api('GET', '/user/balances/')).body.balances).toEqual(mainBefore);

        // The wallet's balance row, through the table's stream, the event router and the webhook queue.
        const deadline = Date.now() + 60_000;
        const changed = () =>
          receiver.received
            .map((r) => JSON.parse(r.body) as { event: string; data: Record<string, unknown> })
            .filter((b) => b.event === 'wallet.balance_changed' && b.data.wallet_id === wallet.wallet_id);
        while (changed().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
        expect(changed().map((b) => [b.data.currency, b.data.cause, Number(b.data.amount), (b.data.reference as { id: string }).id])).toEqual([
          ['USDTPOLYGON', 'payment', Number(credited), payment.id],
        ]);
        expect(receiver.received.map((r) => (JSON.parse(r.body) as { event: string }).event)).toContain('wallet.created');
      } finally {
        await receiver.close();
      }
    },
    TIMEOUT,
  );
});
