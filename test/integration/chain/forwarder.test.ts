import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { Contract, Interface, JsonRpcProvider, Transaction, Wallet, getAddress, parseEther, verifyMessage } from 'ethers';
import type { InterfaceAbi, JsonRpcSigner, Log, TransactionReceipt } from 'ethers';
import { startAnvil } from '../../../infra/local/anvil.js';
import type { AnvilInstance } from '../../../infra/local/anvil.js';
import { startKmsServer } from '../../../infra/local/kms/server.js';
import type { KmsServer } from '../../../infra/local/kms/server.js';
import { buildContractsOutOfProcess } from './contracts-build.js';
import { ERC20_ABI, FORWARDER_ABI, FORWARDER_FACTORY_ABI, TEST_TOKEN_ABI } from '../../../shared/chain/evm/abi.js';
import { loadArtifact } from '../../../shared/chain/evm/artifacts.js';
import { cloneInitCodeHash, depositAddress, saltFor } from '../../../shared/chain/evm/create2.js';
import {
  CREATE2_DEPLOYER_ADDRESS,
  deployTestTokens,
  ensureCreate2Deployer,
  ensureForwarderFactory,
  mintTestToken,
  predictForwarderFactory,
} from '../../../infra/local/dev/deploy.js';
import type { ForwarderFactoryDeployment } from '../../../infra/local/dev/deploy.js';
import { KmsSigner } from '../../../shared/chain/signer/kms-signer.js';

const provider = (anvil: AnvilInstance): JsonRpcProvider => {
  // batchMaxCount 1: no 10 ms batching delay; cacheTimeout -1: no 250 ms cache of identical reads (before/after checks).
  const p = new JsonRpcProvider(anvil.rpcUrl, anvil.chainId, { batchMaxCount: 1, staticNetwork: true, pollingInterval: 20, cacheTimeout: -1 });
  p.pollingInterval = 20;
  return p;
};

const factoryIface = new Interface(FORWARDER_FACTORY_ABI);
const erc20Iface = new Interface(ERC20_ABI);

/** Runs a call that must revert and returns the decoded custom error's name. */
async function revertName(p: JsonRpcProvider, from: string, to: string, data: string): Promise<string | undefined> {
  try {
    await p.call({ from, to, data });
  } catch (error) {
    const revertData = (error as { data?: string }).data;
    if (!revertData) throw error;
    return factoryIface.parseError(revertData)?.name;
  }
  throw new Error('call did not revert');
}

function sweptEvents(receipt: TransactionReceipt): { salt: string; forwarder: string; token: string; amount: bigint; treasury: string }[] {
  return receipt.logs
    .map((log: Log) => factoryIface.parseLog(log))
    .filter((parsed) => parsed?.name === 'Swept')
    .map((parsed) => ({
      salt: parsed?.args[0] as string,
      forwarder: parsed?.args[1] as string,
      token: parsed?.args[2] as string,
      amount: parsed?.args[3] as bigint,
      treasury: parsed?.args[4] as string,
    }));
}

describe('CREATE2 forwarders on anvil, swept by a KMS-signed hot wallet', () => {
  let anvilA: AnvilInstance;
  let anvilB: AnvilInstance;
  let kmsServer: KmsServer;
  let kms: KMSClient;
  let pA: JsonRpcProvider;
  let pB: JsonRpcProvider;
  let admin: JsonRpcSigner; // anvil account 0: deployer, factory owner, token owner
  let payer: JsonRpcSigner; // anvil account 1: a customer
  let hotWallet: KmsSigner;
  let hotWalletAddress: string;
  let treasury: string;
  let factory: ForwarderFactoryDeployment;
  let tokens: Record<'USDT' | 'USDC' | 'DAI' | 'WETH', string>;
  const tenant = 'tenant-42';

  beforeAll(async () => {
    const started = await Promise.allSettled([
      startAnvil({ chainId: 31337 }),
      // Another network, without the CREATE2 deployer proxy: it gets deployed by its canonical transaction.
      startAnvil({ chainId: 8453, disableCreate2Deployer: true }),
      startKmsServer({ host: '127.0.0.1', port: 0 }),
      buildContractsOutOfProcess(),
    ] as const);
    // Keep whatever started, so afterAll stops it even when something else failed.
    if (started[0].status === 'fulfilled') anvilA = started[0].value;
    if (started[1].status === 'fulfilled') anvilB = started[1].value;
    if (started[2].status === 'fulfilled') kmsServer = started[2].value;
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    pA = provider(anvilA);
    pB = provider(anvilB);
    admin = await pA.getSigner(0);
    payer = await pA.getSigner(1);

    kms = new KMSClient({
      endpoint: kmsServer.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'fake', secretAccessKey: 'fake' },
      maxAttempts: 1,
    });
    const key = await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' }));
    hotWallet = new KmsSigner(kms, key.KeyMetadata?.KeyId as string, pA);
    hotWalletAddress = await hotWallet.getAddress();
    treasury = Wallet.createRandom().address;

    // The hot wallet pays the sweeps' gas itself.
    await (await admin.sendTransaction({ to: hotWalletAddress, value: parseEther('10') })).wait();

    factory = await ensureForwarderFactory(admin, { owner: admin.address, hotWallet: hotWalletAddress, treasury });
    tokens = await deployTestTokens(admin);
  });

  afterAll(async () => {
    pA?.destroy();
    pB?.destroy();
    kms?.destroy();
    await Promise.all([anvilA?.close(), anvilB?.close(), kmsServer?.close()]);
  });

  it('uses the CREATE2 deployer proxy that anvil predeploys', async () => {
    expect(await pA.getCode(CREATE2_DEPLOYER_ADDRESS)).not.toBe('0x');
    expect(await ensureCreate2Deployer(admin)).toBe('present');
  });

  it('deploys the factory at the predicted address, idempotently, configured', async () => {
    expect(factory.deployed).toBe(true);
    expect({ factory: factory.factory, implementation: factory.implementation }).toEqual(predictForwarderFactory(admin.address));
    const again = await ensureForwarderFactory(admin, { owner: admin.address, hotWallet: hotWalletAddress, treasury });
    expect(again).toMatchObject({ factory: factory.factory, implementation: factory.implementation, deployed: false });

    const onChain = new Contract(factory.factory, FORWARDER_FACTORY_ABI, pA);
    expect(await onChain.getFunction('owner')()).toBe(admin.address);
    expect(await onChain.getFunction('hotWallet')()).toBe(hotWalletAddress);
    expect(await onChain.getFunction('treasury')()).toBe(treasury);
    expect(await onChain.getFunction('cloneInitCodeHash')()).toBe(cloneInitCodeHash(factory.implementation));
    const impl = new Contract(factory.implementation, FORWARDER_ABI, pA);
    expect(await impl.getFunction('factory')()).toBe(factory.factory);
  });

  it('(a) deploys a forwarder exactly at the offline-computed deposit address', async () => {
    const salt = saltFor(tenant, 'payment-deploy-only');
    const offline = depositAddress(factory.factory, factory.implementation, salt);
    const onChain = new Contract(factory.factory, FORWARDER_FACTORY_ABI, pA);
    expect(await onChain.getFunction('computeAddress')(salt)).toBe(offline);
    expect(await pA.getCode(offline)).toBe('0x');

    const tx = await hotWallet.sendTransaction({ to: factory.factory, data: factoryIface.encodeFunctionData('deployForwarders', [[salt]]) });
    const receipt = await tx.wait();
    const deployed = receipt?.logs.map((l) => factoryIface.parseLog(l)).find((e) => e?.name === 'ForwarderDeployed');
    expect(deployed?.args[1]).toBe(offline);
    // The EIP-1167 runtime pointing at the implementation.
    expect(await pA.getCode(offline)).toBe(`0x363d3d373d3d3d363d73${factory.implementation.slice(2).toLowerCase()}5af43d82803e903d91602b57fd5bf3`);
    expect(await onChain.getFunction('isDeployed')(salt)).toBe(true);
  });

  it('(b) sweeps USDT paid to not-yet-deployed addresses to the treasury, in one batch', async () => {
    const usdt = new Contract(tokens.USDT, ERC20_ABI, pA);
    const salts = [saltFor(tenant, 'payment-1'), saltFor(tenant, 'payment-2')];
    const addresses = salts.map((s) => depositAddress(factory.factory, factory.implementation, s));
    const amounts = [123_456_789n, 5_000_000n]; // 123.456789 and 5 USDT (6 decimals)

    await mintTestToken(admin, tokens.USDT, payer.address, 1_000_000_000n);
    for (const [i, address] of addresses.entries()) {
      expect(await pA.getCode(address)).toBe('0x');
      await (await payer.sendTransaction({ to: tokens.USDT, data: erc20Iface.encodeFunctionData('transfer', [address, amounts[i]]) })).wait();
      expect(await usdt.getFunction('balanceOf')(address)).toBe(amounts[i]);
    }

    const tx = await hotWallet.sendTransaction({
      to: factory.factory,
      data: factoryIface.encodeFunctionData('deployAndFlush', [salts, tokens.USDT]),
    });
    expect(tx.from).toBe(hotWalletAddress);
    const receipt = (await tx.wait()) as TransactionReceipt;
    expect(receipt.status).toBe(1);

    expect(await usdt.getFunction('balanceOf')(treasury)).toBe(amounts[0]! + amounts[1]!);
    for (const address of addresses) {
      expect(await usdt.getFunction('balanceOf')(address)).toBe(0n);
      expect(await pA.getCode(address)).not.toBe('0x');
    }
    expect(sweptEvents(receipt)).toEqual([
      { salt: salts[0], forwarder: addresses[0], token: tokens.USDT, amount: amounts[0], treasury },
      { salt: salts[1], forwarder: addresses[1], token: tokens.USDT, amount: amounts[1], treasury },
    ]);

    // A second payment to an address that is deployed by now: flushed without redeploying.
    await (await payer.sendTransaction({ to: tokens.USDT, data: erc20Iface.encodeFunctionData('transfer', [addresses[0], 1n]) })).wait();
    const again = (await (
      await hotWallet.sendTransaction({ to: factory.factory, data: factoryIface.encodeFunctionData('deployAndFlush', [salts, tokens.USDT]) })
    ).wait()) as TransactionReceipt;
    expect(sweptEvents(again).map((e) => e.amount)).toEqual([1n]);
    expect(again.logs.some((l) => factoryIface.parseLog(l)?.name === 'ForwarderDeployed')).toBe(false);
    expect(await usdt.getFunction('balanceOf')(treasury)).toBe(amounts[0]! + amounts[1]! + 1n);
  });

  it('(b) sweeps the native coin too', async () => {
    const salt = saltFor(tenant, 'payment-eth');
    const address = depositAddress(factory.factory, factory.implementation, salt);
    const value = parseEther('0.5');
    await (await payer.sendTransaction({ to: address, value })).wait();
    expect(await pA.getBalance(address)).toBe(value);
    const before = await pA.getBalance(treasury);

    const receipt = (await (
      await hotWallet.sendTransaction({ to: factory.factory, data: factoryIface.encodeFunctionData('flushNative', [[salt]]) })
    ).wait()) as TransactionReceipt;

    expect(await pA.getBalance(address)).toBe(0n);
    expect((await pA.getBalance(treasury)) - before).toBe(value);
    expect(sweptEvents(receipt)).toEqual([{ salt, forwarder: address, token: '0x0000000000000000000000000000000000000000', amount: value, treasury }]);
  });

  it('(c) lets only the hot wallet sweep, only the owner configure, only the factory flush', async () => {
    const salts = [saltFor(tenant, 'payment-1')];
    const sweep = factoryIface.encodeFunctionData('deployAndFlush', [salts, tokens.USDT]);
    expect(await revertName(pA, payer.address, factory.factory, sweep)).toBe('NotHotWallet');
    expect(await revertName(pA, admin.address, factory.factory, sweep)).toBe('NotHotWallet');
    expect(await revertName(pA, payer.address, factory.factory, factoryIface.encodeFunctionData('flushNative', [salts]))).toBe('NotHotWallet');
    expect(await revertName(pA, payer.address, factory.factory, factoryIface.encodeFunctionData('deployForwarders', [salts]))).toBe('NotHotWallet');
    // ...and the hot wallet may (the same call succeeds from it).
    await expect(pA.call({ from: hotWalletAddress, to: factory.factory, data: sweep })).resolves.toMatch(/^0x/);

    expect(await revertName(pA, payer.address, factory.factory, factoryIface.encodeFunctionData('setTreasury', [payer.address]))).toBe('NotOwner');
    expect(await revertName(pA, hotWalletAddress, factory.factory, factoryIface.encodeFunctionData('setHotWallet', [payer.address]))).toBe('NotOwner');

    const forwarder = depositAddress(factory.factory, factory.implementation, salts[0]!);
    const fwdIface = new Interface(FORWARDER_ABI);
    expect(await revertName(pA, hotWalletAddress, forwarder, fwdIface.encodeFunctionData('flushToken', [tokens.USDT]))).toBe('NotFactory');
    expect(await revertName(pA, payer.address, forwarder, fwdIface.encodeFunctionData('flushNative'))).toBe('NotFactory');

    // A real transaction from another account reverts on chain too.
    const attempt = await payer.sendTransaction({ to: factory.factory, data: sweep, gasLimit: 300_000n }).catch((e: unknown) => e);
    if (attempt instanceof Error) {
      expect(attempt.message).toMatch(/revert/i);
    } else {
      await expect((attempt as { wait(): Promise<unknown> }).wait()).rejects.toMatchObject({ code: 'CALL_EXCEPTION' });
    }
  });

  it('(d) KMS-signed legacy and EIP-1559 transactions are accepted by anvil', async () => {
    const to = Wallet.createRandom().address;
    const network = await pA.getNetwork();
    const nonce = await pA.getTransactionCount(hotWalletAddress, 'pending');
    const legacyRaw = await hotWallet.signTransaction({ type: 0, chainId: network.chainId, nonce, to, value: 1n, gasLimit: 21_000n, gasPrice: 2_000_000_000n });
    const legacy = await (await pA.broadcastTransaction(legacyRaw)).wait();
    expect(legacy?.status).toBe(1);
    expect(Transaction.from(legacyRaw).from).toBe(hotWalletAddress);

    const fee = await pA.getFeeData();
    const eip1559Raw = await hotWallet.signTransaction({
      type: 2,
      chainId: network.chainId,
      nonce: nonce + 1,
      to,
      value: 2n,
      gasLimit: 21_000n,
      maxFeePerGas: fee.maxFeePerGas ?? 2_000_000_000n,
      maxPriorityFeePerGas: fee.maxPriorityFeePerGas ?? 1n,
    });
    const eip1559 = await (await pA.broadcastTransaction(eip1559Raw)).wait();
    expect(eip1559?.status).toBe(1);
    expect(eip1559?.from).toBe(hotWalletAddress);
    expect(await pA.getBalance(to)).toBe(3n);

    const message = 'withdrawal 42';
    expect(verifyMessage(message, await hotWallet.signMessage(message))).toBe(hotWalletAddress);
  });

  it('(e) puts the factory and every deposit address at the same place on a network with another chain id', async () => {
    expect(anvilB.chainId).not.toBe(anvilA.chainId);
    expect((await pB.getNetwork()).chainId).toBe(8453n);
    const adminB = await pB.getSigner(0);
    expect(await pB.getCode(CREATE2_DEPLOYER_ADDRESS)).toBe('0x');
    expect(await ensureCreate2Deployer(adminB)).toBe('deployed');

    const hotWalletB = hotWallet.connect(pB);
    await (await adminB.sendTransaction({ to: hotWalletAddress, value: parseEther('1') })).wait();
    const onB = await ensureForwarderFactory(adminB, { owner: adminB.address, hotWallet: hotWalletAddress, treasury });
    expect(onB.factory).toBe(factory.factory);
    expect(onB.implementation).toBe(factory.implementation);
    expect(await pB.getCode(onB.factory)).toBe(await pA.getCode(factory.factory));

    // A deposit sent on the "wrong" chain is recoverable with the same salt.
    const salt = saltFor(tenant, 'payment-eth-wrong-chain');
    const address = depositAddress(factory.factory, factory.implementation, salt);
    const onChainB = new Contract(onB.factory, FORWARDER_FACTORY_ABI, pB);
    expect(await onChainB.getFunction('computeAddress')(salt)).toBe(address);
    await (await adminB.sendTransaction({ to: address, value: 12345n })).wait();
    await (await hotWalletB.sendTransaction({ to: onB.factory, data: factoryIface.encodeFunctionData('flushNative', [[salt]]) })).wait();
    expect(await pB.getBalance(treasury)).toBe(12345n);
  });

  it('deploys the test tokens with their decimals, deterministically', async () => {
    const expected = { USDT: 6n, USDC: 6n, DAI: 18n, WETH: 18n };
    for (const [symbol, decimals] of Object.entries(expected)) {
      const token = new Contract(tokens[symbol as keyof typeof tokens], TEST_TOKEN_ABI, pA);
      expect(await token.getFunction('decimals')()).toBe(decimals);
      expect(await token.getFunction('symbol')()).toBe(symbol);
    }
    expect(await deployTestTokens(admin)).toEqual(tokens);
    const other = await pA.getSigner(2);
    const usdc = new Contract(tokens.USDC, TEST_TOKEN_ABI, pA);
    await expect(pA.call({ from: other.address, to: tokens.USDC, data: usdc.interface.encodeFunctionData('mint', [other.address, 1n]) })).rejects.toThrow();
  });

  it('keeps the human-readable ABIs in step with the compiled contracts', () => {
    const sameSelectors = (name: string, abi: InterfaceAbi): void => {
      const compiled = new Interface(loadArtifact(name).abi);
      const handWritten = new Interface(abi);
      const sigs = (iface: Interface): string[] => {
        const out: string[] = [];
        iface.forEachFunction((f) => out.push(f.format('minimal')));
        iface.forEachEvent((e) => out.push(e.format('minimal')));
        iface.forEachError((e) => out.push(e.format('minimal')));
        return out.sort();
      };
      expect(sigs(handWritten)).toEqual(expect.arrayContaining(sigs(compiled)));
    };
    sameSelectors('ForwarderFactory', FORWARDER_FACTORY_ABI);
    sameSelectors('Forwarder', FORWARDER_ABI);
    sameSelectors('TestToken', TEST_TOKEN_ABI);
    expect(getAddress(factory.factory)).toBe(factory.factory);
  });
});
