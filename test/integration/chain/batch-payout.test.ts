import { Contract, ContractFactory, Interface, JsonRpcProvider, MaxUint256, Wallet, dataSlice, getAddress, id } from 'ethers';
import type { InterfaceAbi, JsonRpcSigner } from 'ethers';
import { startAnvil } from '../../../infra/local/anvil.js';
import type { AnvilInstance } from '../../../infra/local/anvil.js';
import { deployBatchPayout, deployTestToken, mintTestToken, predictBatchPayout, TEST_TOKENS } from '../../../infra/local/dev/deploy.js';
import { BATCH_PAYOUT_ABI, ERC20_ABI } from '../../../shared/chain/evm/abi.js';
import { loadArtifact } from '../../../shared/chain/evm/artifacts.js';
import { batchOutcomeOf, batchPayoutApprovalData, batchPayoutData, decodeBatchPayoutData } from '../../../shared/chain/evm/batch-payout.js';
import { buildContractsOutOfProcess } from './contracts-build.js';

/**
 * contracts/BatchPayout.sol on anvil: deterministic deployment per hot wallet, only the hot wallet pays, one failing
 * item (a blocked recipient, a missing allowance) leaves the others paid and is reported in the `Payouts` bitmap,
 * and the exact gas of a payout in a batch of 50 against a plain ERC-20 `transfer` (both to new holders).
 */
const fresh = (n: number): string[] => Array.from({ length: n }, () => Wallet.createRandom().address);
/** Addresses that never held anything, the same every run (gas depends on the call data's zero bytes). */
const named = (label: string, n: number): string[] => Array.from({ length: n }, (_, i) => getAddress(dataSlice(id(`${label}:${i}`), 12)));

describe('BatchPayout on anvil', () => {
  let anvil: AnvilInstance;
  let provider: JsonRpcProvider;
  let hot: JsonRpcSigner; // anvil account 0: the hot wallet (and token owner)
  let other: JsonRpcSigner;
  let contract: string;
  let usdt: string;
  const balanceOf = async (token: string, who: string): Promise<bigint> =>
    (await new Contract(token, ERC20_ABI, provider).getFunction('balanceOf')(who)) as bigint;
  const send = async (signer: JsonRpcSigner, to: string, data: string) => {
    const tx = await signer.sendTransaction({ to, data, gasLimit: 5_000_000n });
    const receipt = await tx.wait();
    if (!receipt) throw new Error('no receipt');
    return receipt;
  };

  beforeAll(async () => {
    await buildContractsOutOfProcess();
    anvil = await startAnvil();
    provider = new JsonRpcProvider(anvil.rpcUrl, anvil.chainId, { batchMaxCount: 1, staticNetwork: true, pollingInterval: 20, cacheTimeout: -1 });
    hot = await provider.getSigner(0);
    other = await provider.getSigner(1);
    const deployment = await deployBatchPayout(hot, { hotWallet: hot.address });
    contract = deployment.address;
    usdt = await deployTestToken(hot, TEST_TOKENS.USDT);
    await mintTestToken(hot, usdt, hot.address, 10n ** 15n);
    await send(hot, usdt, batchPayoutApprovalData(contract));
  }, 120_000);

  afterAll(async () => {
    provider?.destroy();
    await anvil?.close();
  });

  it('lands at the address predicted from the hot wallet, once', async () => {
    expect(contract).toBe(predictBatchPayout(hot.address));
    expect(predictBatchPayout(other.address)).not.toBe(contract);
    expect(await deployBatchPayout(hot, { hotWallet: hot.address })).toEqual({ address: contract, deployed: false });
    expect(await new Contract(contract, BATCH_PAYOUT_ABI, provider).getFunction('hotWallet')()).toBe(hot.address);
    expect(await new Contract(usdt, ERC20_ABI, provider).getFunction('allowance')(hot.address, contract)).toBe(MaxUint256);
  });

  it('pays only for the hot wallet', async () => {
    const data = batchPayoutData(usdt, [{ to: fresh(1)[0] as string, units: 1n }]);
    const iface = new Interface(BATCH_PAYOUT_ABI);
    try {
      await provider.call({ from: other.address, to: contract, data });
      throw new Error('did not revert');
    } catch (error) {
      expect(iface.parseError((error as { data: string }).data)?.name).toBe('NotHotWallet');
    }
  });

  it('pays a batch of 50 for at most 0.6 of the gas of 50 plain transfers (exact figures)', async () => {
    // A plain transfer to a new holder, as a single withdrawal pays it.
    const single = await send(hot, usdt, new Interface(ERC20_ABI).encodeFunctionData('transfer', [named('single', 1)[0], 1_000_000n]));
    const recipients = named('batch', 50);
    const data = batchPayoutData(
      usdt,
      recipients.map((to, i) => ({ to, units: 1_000_000n + BigInt(i) })),
    );
    expect(decodeBatchPayoutData(data).items).toHaveLength(50);
    const before = await balanceOf(usdt, hot.address);
    const batch = await send(hot, contract, data);
    expect(batchOutcomeOf(batch.logs, contract)).toEqual({ token: usdt, count: 50, failed: [] });
    for (const [i, to] of recipients.entries()) expect(await balanceOf(usdt, to)).toBe(1_000_000n + BigInt(i));
    expect(before - (await balanceOf(usdt, hot.address))).toBe(50n * 1_000_000n + 1225n);
    const perPayout = batch.gasUsed / 50n;
    expect(single.gasUsed).toBe(51_491n);
    expect(batch.gasUsed).toBe(1_366_094n);
    expect(Number(perPayout) / Number(single.gasUsed)).toBeLessThanOrEqual(0.6);
  });

  it('one recipient the token refuses does not undo the others: it is reported, the rest are paid once', async () => {
    const artifact = loadArtifact('BlocklistToken');
    const deployed = await new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode, hot).deploy(hot.address);
    await deployed.waitForDeployment();
    const token = await deployed.getAddress();
    const t = new Contract(token, artifact.abi as InterfaceAbi, hot);
    await (await t.getFunction('mint')(hot.address, 1000n)).wait();
    await send(hot, token, batchPayoutApprovalData(contract));
    const recipients = fresh(5);
    await (await t.getFunction('setBlocked')(recipients[2], true)).wait();
    const receipt = await send(
      hot,
      contract,
      batchPayoutData(
        token,
        recipients.map((to) => ({ to, units: 10n })),
      ),
    );
    expect(receipt.status).toBe(1);
    expect(batchOutcomeOf(receipt.logs, contract)).toEqual({ token, count: 5, failed: [2] });
    expect(await Promise.all(recipients.map((r) => balanceOf(token, r)))).toEqual([10n, 10n, 0n, 10n, 10n]);
    expect(await balanceOf(token, hot.address)).toBe(960n);
    expect(await balanceOf(token, contract)).toBe(0n);
  });

  it('without the allowance nothing moves and every item is reported', async () => {
    const token = await deployTestToken(hot, { name: 'Unapproved', symbol: 'NOAP', decimals: 6 });
    await mintTestToken(hot, token, hot.address, 1000n);
    const recipients = fresh(3);
    const receipt = await send(
      hot,
      contract,
      batchPayoutData(
        token,
        recipients.map((to) => ({ to, units: 1n })),
      ),
    );
    expect(batchOutcomeOf(receipt.logs, contract)).toEqual({ token, count: 3, failed: [0, 1, 2] });
    expect(await balanceOf(token, hot.address)).toBe(1000n);
  });

  it('keeps the human-readable ABI in step with the compiled contract', () => {
    const sigs = (iface: Interface): string[] => {
      const out: string[] = [];
      iface.forEachFunction((f) => out.push(f.format('minimal')));
      iface.forEachEvent((e) => out.push(e.format('minimal')));
      iface.forEachError((e) => out.push(e.format('minimal')));
      return out.sort();
    };
    expect(sigs(new Interface(BATCH_PAYOUT_ABI))).toEqual(sigs(new Interface(loadArtifact('BatchPayout').abi)));
  });
});
