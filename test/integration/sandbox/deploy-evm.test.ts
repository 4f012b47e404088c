import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { main } from '../../../scripts/gateway.js';
import { KmsSigner } from '../../../shared/chain/signer/kms-signer.js';
import { startKmsServer } from '../../../infra/local/kms/server.js';
import { ERC20_ABI } from '../../../shared/chain/evm/abi.js';
import { CURRENCY_LIST } from '../../../shared/domain/currencies.js';
import { startAnvil } from '../../../infra/local/anvil.js';
import type { AnvilInstance } from '../../../infra/local/anvil.js';
import { buildContractsOutOfProcess } from '../chain/contracts-build.js';

/**
 * `sandbox deploy-evm` against a chain that answers with Sepolia's chain id (anvil), as an operator runs it for a
 * `sandbox` stage: a deployer key in a file, the hot wallet and the treasury named, the test tokens asked for.
 */

const TIMEOUT = 120_000;
// anvil's first dev account: funded on the chain, as a deployer funded from a faucet is.
const DEPLOYER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const HOT_WALLET = Wallet.createRandom().address;
const TREASURY = Wallet.createRandom().address;
const PAYER = Wallet.createRandom().address;

let sepolia: AnvilInstance;
let mainnet: AnvilInstance;
let provider: JsonRpcProvider;
let dir: string;
let keyFile: string;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = jest.spyOn(console, 'log').mockImplementation((text: string) => void out.push(text));
  const error = jest.spyOn(console, 'error').mockImplementation((text: string) => void err.push(text));
  try {
    const code = await main(['sandbox', 'deploy-evm', ...args]);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

const deployArgs = (rpcUrl: string, extra: string[] = []) => [
  '--network',
  'ETH',
  '--rpc-url',
  rpcUrl,
  '--deployer-key-file',
  keyFile,
  '--hot-wallet',
  HOT_WALLET,
  '--treasury',
  TREASURY,
  ...extra,
];

interface Deployed {
  network: string;
  chainId: number;
  forwarderFactory: string;
  withdrawalBatchContract: string;
  subscriptionCollectorContract: string;
  tokenContracts: Record<string, string>;
  minted: Record<string, Record<string, string>>;
  context: string[];
}

beforeAll(async () => {
  await buildContractsOutOfProcess();
  [sepolia, mainnet] = await Promise.all([startAnvil({ chainId: 11155111 }), startAnvil({ chainId: 1 })]);
  provider = new JsonRpcProvider(sepolia.rpcUrl, undefined, { staticNetwork: true });
  dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
  keyFile = join(dir, 'deployer.key');
  writeFileSync(keyFile, `${DEPLOYER_KEY}\n`);
}, TIMEOUT);

afterAll(async () => {
  provider?.destroy();
  await Promise.all([sepolia?.close(), mainnet?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('sandbox deploy-evm', () => {
  let first: Deployed;

  it(
    "deploys the factory for the hot wallet and the treasury, the hot wallet's batch contract and the test tokens, tops up a payer, and prints the stage's context",
    async () => {
      const run = await cli(deployArgs(sepolia.rpcUrl, ['--test-tokens', '--mint', '1000', '--mint-to', `${PAYER},${HOT_WALLET}`, '--json']));
      expect(run).toMatchObject({ code: 0, err: '' });
      first = JSON.parse(run.out) as Deployed;
      expect([first.network, first.chainId]).toEqual(['ETH', 11155111]);

      const factory = new Contract(
        first.forwarderFactory,
        ['function hotWallet() view returns (address)', 'function treasury() view returns (address)'],
        provider,
      );
      expect([await factory.getFunction('hotWallet')(), await factory.getFunction('treasury')()]).toEqual([HOT_WALLET, TREASURY]);
      const batch = new Contract(first.withdrawalBatchContract, ['function hotWallet() view returns (address)'], provider);
      expect(await batch.getFunction('hotWallet')()).toBe(HOT_WALLET);

      // Every token currency of Ethereum in the catalogue, with its decimals; each recipient holds 1,000 whole tokens.
      const ethTokens = CURRENCY_LIST.filter((c) => c.network === 'ETH' && !c.native).map((c) => c.code);
      expect(Object.keys(first.tokenContracts).sort()).toEqual(ethTokens.sort());
      expect(ethTokens).toEqual(expect.arrayContaining(['USDTERC20', 'USDCERC20']));
      for (const [code, address] of Object.entries(first.tokenContracts)) {
        const token = new Contract(address, ERC20_ABI, provider);
        const decimals = Number(await token.getFunction('decimals')());
        if (code.startsWith('USDT') || code.startsWith('USDC')) expect([code, decimals]).toEqual([code, 6]);
        for (const holder of [PAYER, HOT_WALLET]) {
          expect([code, holder, ((await token.getFunction('balanceOf')(holder)) as bigint).toString()]).toEqual([
            code,
            holder,
            (1000n * 10n ** BigInt(decimals)).toString(),
          ]);
        }
      }
      expect(first.context).toEqual([
        `-c forwarderFactories='${JSON.stringify({ ETH: first.forwarderFactory })}'`,
        `-c tokenContracts='${JSON.stringify(first.tokenContracts)}'`,
        `-c withdrawalBatchContract=${first.withdrawalBatchContract}`,
        `-c subscriptionCollectorContract=${first.subscriptionCollectorContract}`,
      ]);
      const collector = new Contract(first.subscriptionCollectorContract, ['function collector() view returns (address)'], provider);
      expect(await collector.getFunction('collector')()).toBe(HOT_WALLET);
    },
    TIMEOUT,
  );

  it(
    'run again, deploys nothing and mints nothing: the same addresses, the same nonce',
    async () => {
      const deployer = new Wallet(DEPLOYER_KEY).address;
      const nonce = await provider.getTransactionCount(deployer);
      const run = await cli(deployArgs(sepolia.rpcUrl, ['--test-tokens', '--mint', '1000', '--mint-to', PAYER, '--json']));
      expect(run.code).toBe(0);
      const again = JSON.parse(run.out) as Deployed;
      expect([again.forwarderFactory, again.withdrawalBatchContract, again.tokenContracts]).toEqual([
        first.forwarderFactory,
        first.withdrawalBatchContract,
        first.tokenContracts,
      ]);
      expect(Object.values(again.minted).flatMap((byHolder) => Object.values(byHolder))).toEqual(Object.keys(first.tokenContracts).map(() => '0'));
      expect(await provider.getTransactionCount(deployer)).toBe(nonce);
    },
    TIMEOUT,
  );

  it(
    "takes the hot wallet from the stack's signing key: the factory is pointed at the key's address",
    async () => {
      const kmsServer = await startKmsServer({ host: '127.0.0.1', port: 0 });
      const kms = new KMSClient({ endpoint: kmsServer.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
      const saved = { ...process.env };
      try {
        const key = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }));
        const keyId = key.KeyMetadata?.KeyId ?? '';
        Object.assign(process.env, {
          AWS_ENDPOINT_URL_KMS: kmsServer.url,
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
          AWS_REGION: 'us-east-1',
        });
        const args = deployArgs(sepolia.rpcUrl, ['--json']);
        args.splice(args.indexOf('--hot-wallet'), 2, '--signing-key-id', keyId);
        const run = await cli(args);
        expect(run).toMatchObject({ code: 0, err: '' });
        const deployed = JSON.parse(run.out) as Deployed;
        const hotWallet = await new KmsSigner(kms, keyId).getAddress();
        const factory = new Contract(deployed.forwarderFactory, ['function hotWallet() view returns (address)'], provider);
        expect([deployed.forwarderFactory, await factory.getFunction('hotWallet')()]).toEqual([first.forwarderFactory, hotWallet]);
        const batch = new Contract(deployed.withdrawalBatchContract, ['function hotWallet() view returns (address)'], provider);
        expect(await batch.getFunction('hotWallet')()).toBe(hotWallet);
      } finally {
        process.env = saved;
        kms.destroy();
        await kmsServer.close();
      }
    },
    TIMEOUT,
  );

  it(
    "refuses a chain that is not the network's test network, and deploys nothing there",
    async () => {
      const run = await cli(deployArgs(mainnet.rpcUrl, ['--test-tokens']));
      expect(run.code).toBe(2);
      expect(run.err).toContain("has id 1; ETH's test network is 11155111: nothing deployed");
      const onMainnet = new JsonRpcProvider(mainnet.rpcUrl, undefined, { staticNetwork: true });
      try {
        expect(await onMainnet.getTransactionCount(new Wallet(DEPLOYER_KEY).address)).toBe(0);
      } finally {
        onMainnet.destroy();
      }
    },
    TIMEOUT,
  );

  it('refuses bad input with its usage, before touching a chain', async () => {
    const bad = join(dir, 'bad.key');
    writeFileSync(bad, 'not a key');
    const cases: [string[], string][] = [
      [deployArgs(sepolia.rpcUrl).map((a) => (a === keyFile ? bad : a)), '--deployer-key-file must hold one private key'],
      [deployArgs(sepolia.rpcUrl).map((a) => (a === 'ETH' ? 'TRX' : a)), 'TRX is not an EVM network of the catalogue'],
      [deployArgs(sepolia.rpcUrl).map((a) => (a === HOT_WALLET ? '0x1234' : a)), 'the hot wallet is not an EVM address'],
      [deployArgs(sepolia.rpcUrl, ['--mint', '5']), '--mint and --mint-to go together'],
      [deployArgs(sepolia.rpcUrl, ['--mint', '5', '--mint-to', PAYER]), '--mint needs --test-tokens'],
      [deployArgs(sepolia.rpcUrl, ['--signing-key-id', 'k']), 'give --hot-wallet or --signing-key-id, one of them'],
    ];
    for (const [args, message] of cases) {
      const run = await cli(args);
      expect([run.code, run.err.split('\n')[0]]).toEqual([2, expect.stringContaining(message)]);
      expect(run.err).toContain('Usage: npm run gateway -- sandbox deploy-evm');
    }
  });
});
