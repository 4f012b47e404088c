/**
 * Deterministic deployment of the gateway's contracts on any EVM chain, through the CREATE2 deployer proxy
 * ("Arachnid's", 0x4e59b44847b379578588920ca78fbf26c0b4956c: calldata = salt ‖ init code, deploys with
 * CREATE2(proxy, salt, init code)). The proxy itself sits at the same address on every chain because it is
 * deployed by a one-off pre-EIP-155 transaction from a keyless account (`ensureCreate2Deployer`); anvil
 * predeploys it. Hence the factory, its forwarder implementation and every deposit address are the same on
 * every EVM network. All functions are idempotent: what already has code is not deployed again.
 *
 * Deployment is an operator/local-stack task (it reads build artifacts); runtime code only needs addresses.
 */
import { AbiCoder, Interface, ZeroHash, concat, getAddress, getBytes, parseEther } from 'ethers';
import type { BytesLike, ContractRunner, InterfaceAbi, Provider, Signer } from 'ethers';
import { BATCH_PAYOUT_ABI, FORWARDER_FACTORY_ABI, TEST_TOKEN_ABI } from '../../../shared/chain/evm/abi.js';
import { loadArtifact } from '../../../shared/chain/evm/artifacts.js';
import { SUBSCRIPTION_COLLECTOR_ABI } from '../../../shared/chain/evm/collector.js';
import { create2Address, forwarderImplementationAddress, initCodeHash } from '../../../shared/chain/evm/create2.js';

export const CREATE2_DEPLOYER_ADDRESS = '0x4e59b44847b379578588920cA78FbF26c0B4956C';
/** Runtime code of the proxy (69 bytes). */
export const CREATE2_DEPLOYER_RUNTIME_CODE =
  '0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3';
/** Keyless account that sends the proxy's deployment transaction (nonce 0, gas 100 000 at 100 gwei). */
export const CREATE2_DEPLOYER_SIGNER = '0x3fab184622dc19b6109349b94811493bf2a45362';
export const CREATE2_DEPLOYER_DEPLOYMENT_TX =
  '0xf8a58085174876e800830186a08080b853604580600e600039806000f350fe7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf31ba02222222222222222222222222222222222222222222222222222222222222222a02222222222222222222222222222222222222222222222222222222222222222';
const CREATE2_DEPLOYER_FUNDING = parseEther('0.01');

/** Salt of the factory's deployment through the proxy. Changing it moves the factory and every deposit address. */
export const FORWARDER_FACTORY_SALT = ZeroHash;

export class DeploymentError extends Error {
  readonly code = 'DEPLOYMENT_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DeploymentError';
  }
}

function providerOf(runner: ContractRunner): Provider {
  if (!runner.provider) throw new DeploymentError('the signer has no provider');
  return runner.provider;
}

async function hasCode(provider: Provider, address: string, blockTag?: number): Promise<boolean> {
  return (await provider.getCode(address, blockTag)) !== '0x';
}

/** Sends a transaction and waits for its receipt; a revert becomes a DeploymentError. */
async function sendAndWait(signer: Signer, to: string, data: string, what: string): Promise<{ hash: string; blockNumber: number }> {
  const tx = await signer.sendTransaction({ to, data });
  const receipt = await tx.wait();
  if (!receipt || receipt.status !== 1) throw new DeploymentError(`${what}: transaction ${tx.hash} failed`);
  return { hash: tx.hash, blockNumber: receipt.blockNumber };
}

async function call(runner: ContractRunner, to: string, abi: InterfaceAbi, fn: string, args: readonly unknown[] = []): Promise<unknown> {
  const iface = new Interface(abi);
  const data = iface.encodeFunctionData(fn, args);
  const result = await providerOf(runner).call({ to, data });
  return iface.decodeFunctionResult(fn, result)[0] as unknown;
}

/**
 * Makes sure the CREATE2 deployer proxy exists: when missing, funds its keyless signer from `funder` and
 * broadcasts the canonical pre-EIP-155 deployment transaction. Chains that reject unprotected transactions
 * need that allowed (geth `--rpc.allow-unprotected-txs`).
 */
export async function ensureCreate2Deployer(funder: Signer): Promise<'present' | 'deployed'> {
  const provider = providerOf(funder);
  if (await hasCode(provider, CREATE2_DEPLOYER_ADDRESS)) return 'present';
  if ((await provider.getTransactionCount(CREATE2_DEPLOYER_SIGNER)) !== 0) {
    throw new DeploymentError('the CREATE2 deployer signer has already used nonce 0 on this chain: the proxy cannot be deployed');
  }
  const balance = await provider.getBalance(CREATE2_DEPLOYER_SIGNER);
  if (balance < CREATE2_DEPLOYER_FUNDING) {
    const fund = await funder.sendTransaction({ to: CREATE2_DEPLOYER_SIGNER, value: CREATE2_DEPLOYER_FUNDING - balance });
    await fund.wait();
  }
  const tx = await provider.broadcastTransaction(CREATE2_DEPLOYER_DEPLOYMENT_TX);
  const receipt = await tx.wait();
  const code = await provider.getCode(CREATE2_DEPLOYER_ADDRESS, receipt?.blockNumber);
  if (code.toLowerCase() !== CREATE2_DEPLOYER_RUNTIME_CODE) throw new DeploymentError('CREATE2 deployer proxy deployment failed');
  return 'deployed';
}

export interface DeterministicDeployment {
  address: string;
  /** false when code was already there. */
  deployed: boolean;
  txHash?: string;
}

/** The address `deployDeterministic(initCode, salt)` deploys to (pure). */
export function predictDeterministicAddress(initCode: BytesLike, salt: string = ZeroHash): string {
  return create2Address(CREATE2_DEPLOYER_ADDRESS, salt, initCodeHash(getBytes(initCode)));
}

/** Deploys `initCode` through the CREATE2 deployer proxy, unless the target already has code. */
export async function deployDeterministic(signer: Signer, initCode: BytesLike, salt: string = ZeroHash): Promise<DeterministicDeployment> {
  const provider = providerOf(signer);
  const address = predictDeterministicAddress(initCode, salt);
  if (await hasCode(provider, address)) return { address, deployed: false };
  if (!(await hasCode(provider, CREATE2_DEPLOYER_ADDRESS))) {
    throw new DeploymentError(`no CREATE2 deployer proxy at ${CREATE2_DEPLOYER_ADDRESS} on this chain: call ensureCreate2Deployer first`);
  }
  const sent = await sendAndWait(signer, CREATE2_DEPLOYER_ADDRESS, concat([salt, initCode]), `deployment to ${address}`);
  // Read at the receipt's block: ethers caches identical requests (cacheTimeout, 250 ms by default), so a
  // second `getCode(address, 'latest')` could answer from before the deployment.
  if (!(await hasCode(provider, address, sent.blockNumber))) {
    throw new DeploymentError(`deployment to ${address} left no code (tx ${sent.hash})`);
  }
  return { address, deployed: true, txHash: sent.hash };
}

// ------------------------------------------------------------------------------------------------ factory

/** Creation code of the factory with its one constructor argument (the owner). */
export function forwarderFactoryInitCode(owner: string): string {
  const args = AbiCoder.defaultAbiCoder().encode(['address'], [getAddress(owner)]);
  return concat([loadArtifact('ForwarderFactory').bytecode, args]);
}

export interface ForwarderFactoryAddresses {
  factory: string;
  /** The forwarder implementation (CREATE(factory, 1)), the second input of `depositAddress`. */
  implementation: string;
}

/** Where the factory of `owner` is (or will be) on every EVM chain (reads the build artifact; no I/O on chain). */
export function predictForwarderFactory(owner: string): ForwarderFactoryAddresses {
  const factory = predictDeterministicAddress(forwarderFactoryInitCode(owner), FORWARDER_FACTORY_SALT);
  return { factory, implementation: forwarderImplementationAddress(factory) };
}

export interface ForwarderFactoryDeployment extends ForwarderFactoryAddresses {
  deployed: boolean;
  txHash?: string;
}

/** Deploys the factory of `owner` deterministically (skipped when already deployed). Any funded account may send it. */
export async function deployForwarderFactory(signer: Signer, options: { owner: string }): Promise<ForwarderFactoryDeployment> {
  const deployment = await deployDeterministic(signer, forwarderFactoryInitCode(options.owner), FORWARDER_FACTORY_SALT);
  const implementation = getAddress(String(await call(signer, deployment.address, FORWARDER_FACTORY_ABI, 'implementation')));
  if (implementation !== forwarderImplementationAddress(deployment.address)) {
    throw new DeploymentError(`factory ${deployment.address} reports implementation ${implementation}, expected CREATE(factory, 1)`);
  }
  return { ...deployment, factory: deployment.address, implementation };
}

export interface FactoryConfiguration {
  hotWallet: string;
  treasury: string;
}

/** Sets the hot wallet and the treasury of a factory where they differ (signed by the factory's owner). */
export async function configureForwarderFactory(
  ownerSigner: Signer,
  factory: string,
  config: FactoryConfiguration,
): Promise<{ changed: ('hotWallet' | 'treasury')[] }> {
  const iface = new Interface(FORWARDER_FACTORY_ABI);
  const owner = getAddress(String(await call(ownerSigner, factory, FORWARDER_FACTORY_ABI, 'owner')));
  const signerAddress = await ownerSigner.getAddress();
  const changed: ('hotWallet' | 'treasury')[] = [];
  const steps = [
    ['hotWallet', 'setHotWallet', config.hotWallet],
    ['treasury', 'setTreasury', config.treasury],
  ] as const;
  for (const [field, setter, wanted] of steps) {
    const current = getAddress(String(await call(ownerSigner, factory, FORWARDER_FACTORY_ABI, field)));
    if (current === getAddress(wanted)) continue;
    if (getAddress(signerAddress) !== owner) {
      throw new DeploymentError(`factory ${factory} is owned by ${owner}; ${signerAddress} cannot set its ${field}`);
    }
    await sendAndWait(ownerSigner, factory, iface.encodeFunctionData(setter, [getAddress(wanted)]), `${setter}(${wanted})`);
    changed.push(field);
  }
  return { changed };
}

/**
 * Deploys (if needed) and configures (if needed) the factory of `owner`. `ownerSigner` signs the configuration;
 * it defaults to `deployer`, which then must be the owner.
 */
export async function ensureForwarderFactory(
  deployer: Signer,
  options: { owner: string; hotWallet: string; treasury: string; ownerSigner?: Signer },
): Promise<ForwarderFactoryDeployment> {
  const deployment = await deployForwarderFactory(deployer, { owner: options.owner });
  await configureForwarderFactory(options.ownerSigner ?? deployer, deployment.factory, options);
  return deployment;
}

// ------------------------------------------------------------------------------------------------ batch payouts

/** Salt of the batch payout contract's deployment through the proxy (its init code differs from the factory's). */
export const BATCH_PAYOUT_SALT = ZeroHash;

/** Creation code of BatchPayout with its one constructor argument (the hot wallet allowed to pay). */
export function batchPayoutInitCode(hotWallet: string): string {
  const args = AbiCoder.defaultAbiCoder().encode(['address'], [getAddress(hotWallet)]);
  return concat([loadArtifact('BatchPayout').bytecode, args]);
}

/** Where the batch payout contract of `hotWallet` is (or will be) on every EVM chain (reads the build artifact). */
export function predictBatchPayout(hotWallet: string): string {
  return predictDeterministicAddress(batchPayoutInitCode(hotWallet), BATCH_PAYOUT_SALT);
}

/**
 * Deploys the batch payout contract of `hotWallet` deterministically (skipped when already there; any funded account
 * may send it). The hot wallet still has to approve it, once per token, before it pays (`batchPayoutApprovalData`).
 */
export async function deployBatchPayout(signer: Signer, options: { hotWallet: string }): Promise<DeterministicDeployment> {
  const deployment = await deployDeterministic(signer, batchPayoutInitCode(options.hotWallet), BATCH_PAYOUT_SALT);
  const hotWallet = getAddress(String(await call(signer, deployment.address, BATCH_PAYOUT_ABI, 'hotWallet')));
  if (hotWallet !== getAddress(options.hotWallet))
    throw new DeploymentError(`batch payout ${deployment.address} pays for ${hotWallet}, not ${options.hotWallet}`);
  return deployment;
}

// ------------------------------------------------------------------------------------------------ subscription collector

/** Salt of the subscription collector's deployment through the proxy. */
export const SUBSCRIPTION_COLLECTOR_SALT = ZeroHash;

/** Creation code of SubscriptionCollector with its one constructor argument (the key allowed to charge). */
export function subscriptionCollectorInitCode(collector: string): string {
  const args = AbiCoder.defaultAbiCoder().encode(['address'], [getAddress(collector)]);
  return concat([loadArtifact('SubscriptionCollector').bytecode, args]);
}

/** Where the subscription collector charged by `collector` is (or will be) on every EVM chain (reads the build artifact). */
export function predictSubscriptionCollector(collector: string): string {
  return predictDeterministicAddress(subscriptionCollectorInitCode(collector), SUBSCRIPTION_COLLECTOR_SALT);
}

/**
 * Deploys the subscription collector charged by `collector` (the hot wallet's KMS key) deterministically (skipped when
 * already there; any funded account may send it). Subscribers approve it and authorise their mandates themselves.
 */
export async function deploySubscriptionCollector(signer: Signer, options: { collector: string }): Promise<DeterministicDeployment> {
  const deployment = await deployDeterministic(signer, subscriptionCollectorInitCode(options.collector), SUBSCRIPTION_COLLECTOR_SALT);
  const collector = getAddress(String(await call(signer, deployment.address, SUBSCRIPTION_COLLECTOR_ABI, 'collector')));
  if (collector !== getAddress(options.collector))
    throw new DeploymentError(`subscription collector ${deployment.address} is charged by ${collector}, not ${options.collector}`);
  return deployment;
}

// ------------------------------------------------------------------------------------------------ test tokens

export interface TestTokenSpec {
  name: string;
  symbol: string;
  decimals: number;
}

/** The local chain's stand-ins for the catalogue's tokens. */
export const TEST_TOKENS = {
  USDT: { name: 'Tether USD (test)', symbol: 'USDT', decimals: 6 },
  USDC: { name: 'USD Coin (test)', symbol: 'USDC', decimals: 6 },
  DAI: { name: 'Dai Stablecoin (test)', symbol: 'DAI', decimals: 18 },
  WETH: { name: 'Wrapped Ether (test)', symbol: 'WETH', decimals: 18 },
} as const satisfies Record<string, TestTokenSpec>;

export type TestTokenSymbol = keyof typeof TEST_TOKENS;

function testTokenInitCode(spec: TestTokenSpec, owner: string): string {
  const args = AbiCoder.defaultAbiCoder().encode(['string', 'string', 'uint8', 'address'], [spec.name, spec.symbol, spec.decimals, getAddress(owner)]);
  return concat([loadArtifact('TestToken').bytecode, args]);
}

/** Address of a test token (deterministic: same spec and owner, same address on every chain). */
export function predictTestToken(spec: TestTokenSpec, owner: string): string {
  return predictDeterministicAddress(testTokenInitCode(spec, owner));
}

/** Deploys a TestToken through the CREATE2 proxy; `owner` (default: the signer) may mint. */
export async function deployTestToken(signer: Signer, spec: TestTokenSpec, owner?: string): Promise<string> {
  const deployment = await deployDeterministic(signer, testTokenInitCode(spec, owner ?? (await signer.getAddress())));
  return deployment.address;
}

/** Deploys USDT and USDC (6 decimals), DAI and WETH (18 decimals); returns their addresses by symbol. */
export async function deployTestTokens(signer: Signer, owner?: string): Promise<Record<TestTokenSymbol, string>> {
  const tokenOwner = owner ?? (await signer.getAddress());
  const out = {} as Record<TestTokenSymbol, string>;
  for (const symbol of Object.keys(TEST_TOKENS) as TestTokenSymbol[]) {
    out[symbol] = await deployTestToken(signer, TEST_TOKENS[symbol], tokenOwner);
  }
  return out;
}

/** Mints `amount` base units of a TestToken to `to` (signed by the token's owner). */
export async function mintTestToken(ownerSigner: Signer, token: string, to: string, amount: bigint): Promise<string> {
  const data = new Interface(TEST_TOKEN_ABI).encodeFunctionData('mint', [getAddress(to), amount]);
  return (await sendAndWait(ownerSigner, token, data, `mint ${amount} of ${token} to ${to}`)).hash;
}
