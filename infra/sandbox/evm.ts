/**
 * The gateway's contracts on a public EVM test network (Sepolia, Polygon Amoy, BSC testnet, Arbitrum Sepolia, …),
 * for a `sandbox` stage merchants integrate against: the deposit-address factory (configured with the hot wallet
 * and the treasury), the hot wallet's BatchPayout contract and, when asked, the repository's test tokens with the
 * catalogue's decimals, minted to whom the operator names. Everything goes through the deterministic CREATE2
 * deployer already present on those networks, so a second run deploys nothing and the addresses are the local
 * stack's and the same on every test network. What it answers is the stage's context values
 * (`forwarderFactories`, `withdrawalBatchContract`, `subscriptionCollectorContract`, `tokenContracts`).
 *
 * It refuses a chain whose id is not the network's test network: no mainnet deployment by mistake.
 */
import { Contract, getAddress, isAddress, JsonRpcProvider, NonceManager, parseUnits, Wallet } from 'ethers';
import { CURRENCY_LIST, NETWORKS } from '../../shared/domain/currencies.js';
import type { NetworkCode } from '../../shared/domain/currencies.js';
import { ERC20_ABI } from '../../shared/chain/evm/abi.js';
import { localTestTokens } from '../local/chains.js';
import {
  deployBatchPayout,
  deploySubscriptionCollector,
  deployTestToken,
  ensureCreate2Deployer,
  ensureForwarderFactory,
  mintTestToken,
} from '../local/dev/deploy.js';

export interface SandboxEvmOptions {
  readonly network: string;
  readonly rpcUrl: string;
  /** The deployer's private key (0x-hex): pays gas, owns the factory and the test tokens unless `owner` is given. */
  readonly deployerKey: string;
  /** The hot wallet's EVM address (the stack's `SigningKeyId` key). */
  readonly hotWallet: string;
  /** Where sweeps go. */
  readonly treasury: string;
  /** Deploy the test tokens of the network's catalogue currencies. */
  readonly testTokens?: boolean;
  /** Top each of `to` up to this many whole tokens of each test token (the hot wallet's float, a merchant's test payer). */
  readonly mint?: { readonly amount: string; readonly to: readonly string[] };
}

export interface SandboxEvmDeployment {
  readonly network: NetworkCode;
  readonly chainId: number;
  readonly forwarderFactory: string;
  readonly forwarderImplementation: string;
  readonly withdrawalBatchContract: string;
  /** The subscription collector the hot wallet charges (pull subscriptions). */
  readonly subscriptionCollectorContract: string;
  /** Token contracts by catalogue currency code (only with `testTokens`). */
  readonly tokenContracts: Record<string, string>;
  /** Base units minted by this run, by currency code and recipient. */
  readonly minted: Record<string, Record<string, string>>;
}

export class SandboxError extends Error {}

function evmNetwork(code: string): NetworkCode {
  const network = (NETWORKS as Record<string, (typeof NETWORKS)[NetworkCode] | undefined>)[code];
  if (!network || network.family !== 'evm') {
    const evm = Object.values(NETWORKS).filter((n) => n.family === 'evm');
    throw new SandboxError(`${code} is not an EVM network of the catalogue (${evm.map((n) => n.code).join(', ')})`);
  }
  return network.code;
}

const address = (value: string, what: string): string => {
  if (!isAddress(value)) throw new SandboxError(`${what} is not an EVM address: ${value}`);
  return getAddress(value);
};

export async function deploySandboxEvm(options: SandboxEvmOptions): Promise<SandboxEvmDeployment> {
  const network = evmNetwork(options.network);
  const hotWallet = address(options.hotWallet, 'the hot wallet');
  const treasury = address(options.treasury, 'the treasury');
  const recipients = (options.mint?.to ?? []).map((to) => address(to, 'a mint recipient'));
  const expected = NETWORKS[network].chainId.testnet;
  const provider = new JsonRpcProvider(options.rpcUrl, undefined, { pollingInterval: 1_000, cacheTimeout: -1 });
  try {
    const chainId = Number((await provider.getNetwork()).chainId);
    if (chainId !== expected) {
      throw new SandboxError(`the chain at ${options.rpcUrl} has id ${chainId}; ${network}'s test network is ${expected}: nothing deployed`);
    }
    // One transaction after another from one key: the nonce is counted here, not re-read between them.
    const deployer = new NonceManager(new Wallet(options.deployerKey, provider));
    await ensureCreate2Deployer(deployer);
    const factory = await ensureForwarderFactory(deployer, { owner: await deployer.getAddress(), hotWallet, treasury });
    const batchPayout = await deployBatchPayout(deployer, { hotWallet });
    const collector = await deploySubscriptionCollector(deployer, { collector: hotWallet });
    const tokenContracts: Record<string, string> = {};
    const minted: Record<string, Record<string, string>> = {};
    if (options.testTokens) {
      const specs = localTestTokens(network);
      for (const currency of CURRENCY_LIST.filter((c) => c.network === network && !c.native)) {
        const spec = specs[currency.token];
        if (!spec) continue;
        const token = await deployTestToken(deployer, spec);
        tokenContracts[currency.code] = token;
        if (!options.mint) continue;
        const wanted = parseUnits(options.mint.amount, spec.decimals);
        const balanceOf = new Contract(token, ERC20_ABI, provider).getFunction('balanceOf');
        for (const to of recipients) {
          // A top-up to the amount, so that running it again mints nothing.
          const held = (await balanceOf(to)) as bigint;
          if (held < wanted) await mintTestToken(deployer, token, to, wanted - held);
          (minted[currency.code] ??= {})[to] = (wanted > held ? wanted - held : 0n).toString();
        }
      }
    }
    return {
      network,
      chainId,
      forwarderFactory: factory.factory,
      forwarderImplementation: factory.implementation,
      withdrawalBatchContract: batchPayout.address,
      subscriptionCollectorContract: collector.address,
      tokenContracts,
      minted,
    };
  } finally {
    provider.destroy();
  }
}

/** The `cdk deploy` context arguments of one or more networks' deployments (the batch contract is the same on each). */
export function sandboxContext(deployments: readonly SandboxEvmDeployment[]): string[] {
  const factories = Object.fromEntries(deployments.map((d) => [d.network, d.forwarderFactory]));
  const tokens = Object.assign({}, ...deployments.map((d) => d.tokenContracts)) as Record<string, string>;
  const batch = [...new Set(deployments.map((d) => d.withdrawalBatchContract))];
  const collectors = [...new Set(deployments.map((d) => d.subscriptionCollectorContract))];
  return [
    `-c forwarderFactories='${JSON.stringify(factories)}'`,
    ...(Object.keys(tokens).length > 0 ? [`-c tokenContracts='${JSON.stringify(tokens)}'`] : []),
    ...(batch.length === 1 ? [`-c withdrawalBatchContract=${batch[0]}`] : []),
    ...(collectors.length === 1 ? [`-c subscriptionCollectorContract=${collectors[0]}`] : []),
  ];
}
