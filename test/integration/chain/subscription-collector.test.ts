import { Contract, ContractFactory, Interface, JsonRpcProvider, TypedDataEncoder } from 'ethers';
import type { InterfaceAbi, JsonRpcSigner, TransactionReceipt } from 'ethers';
import { benchCollectorGas } from '../../../bench/collector-gas.js';
import { startAnvil } from '../../../infra/local/anvil.js';
import type { AnvilInstance } from '../../../infra/local/anvil.js';
import { deploySubscriptionCollector, deployTestToken, mintTestToken, predictSubscriptionCollector, TEST_TOKENS } from '../../../infra/local/dev/deploy.js';
import { ERC20_ABI } from '../../../shared/chain/evm/abi.js';
import { loadArtifact } from '../../../shared/chain/evm/artifacts.js';
import {
  SUBSCRIPTION_COLLECTOR_ABI,
  authorizeWithSignatureData,
  chargeBatchData,
  chargeData,
  chargeOutcomesOf,
  collectorEventsOf,
  collectorLogFilters,
  collectorSetup,
  mandateDigest,
  mandateId,
  mandatePeriodSeconds,
  mandateTypedData,
  revokeData,
} from '../../../shared/chain/evm/collector.js';
import type { MandateCharge, MandateTerms } from '../../../shared/chain/evm/collector.js';
import { buildContractsOutOfProcess } from './contracts-build.js';

/**
 * contracts/SubscriptionCollector.sol on anvil, driven only through the call data of shared/chain/evm/collector.ts:
 * mandates authorised by the subscriber (its own call, or its EIP-712 signature submitted by the gateway), one
 * charge per period across three periods (anvil's clock moved), both caps, only the gateway's key, a revoked
 * allowance or mandate failing its charge without undoing the batch's others, a USDT-style token, and the exact gas
 * of a charge in a batch of 50 against a plain transfer.
 */
const AMOUNT = 12_500_000n; // 12.5 USDT
const MONTH = mandatePeriodSeconds('month', 1);
const iface = new Interface(SUBSCRIPTION_COLLECTOR_ABI);

describe('SubscriptionCollector on anvil', () => {
  let anvil: AnvilInstance;
  let provider: JsonRpcProvider;
  let owner: JsonRpcSigner; // deploys, owns the test tokens
  let hot: JsonRpcSigner; // the gateway's key: the only caller of charge/chargeBatch
  let payee: JsonRpcSigner; // the gateway's address paid
  let subscribers: JsonRpcSigner[];
  let collector: string;
  let usdt: string;
  let chainId: number;
  let salt = 0n;

  const balanceOf = async (token: string, who: string): Promise<bigint> =>
    (await new Contract(token, ERC20_ABI, provider).getFunction('balanceOf')(who)) as bigint;
  const send = async (signer: JsonRpcSigner, to: string, data: string): Promise<TransactionReceipt> => {
    const receipt = await (await signer.sendTransaction({ to, data, gasLimit: 8_000_000n })).wait();
    if (!receipt) throw new Error('no receipt');
    return receipt;
  };
  /** The custom error a call from `from` reverts with. */
  const revertOf = async (from: string, to: string, data: string): Promise<{ name: string; args: unknown[] }> => {
    try {
      await provider.call({ from, to, data });
    } catch (error) {
      const parsed = iface.parseError((error as { data: string }).data);
      if (!parsed) throw error;
      return { name: parsed.name, args: [...parsed.args] };
    }
    throw new Error('did not revert');
  };
  const now = async (): Promise<number> => (await provider.getBlock('latest'))?.timestamp ?? 0;
  const travel = async (seconds: number): Promise<void> => {
    await provider.send('evm_increaseTime', [seconds]);
    await provider.send('evm_mine', []);
  };
  const terms = async (subscriber: JsonRpcSigner, overrides: Partial<MandateTerms> = {}): Promise<MandateTerms> => ({
    subscriber: subscriber.address,
    token: usdt,
    payee: payee.address,
    perChargeCap: AMOUNT,
    perPeriodCap: AMOUNT,
    periodSeconds: MONTH,
    start: await now(),
    salt: ++salt,
    ...overrides,
  });
  /** The subscriber sends the setup's two calls: the approval and its own authorisation. */
  const subscribe = async (subscriber: JsonRpcSigner, t: MandateTerms, allowance = 12n * AMOUNT): Promise<TransactionReceipt[]> => {
    const setup = collectorSetup({ chainId, collector, terms: t, allowance });
    return [await send(subscriber, setup.approve.to, setup.approve.data), await send(subscriber, setup.authorize.to, setup.authorize.data)];
  };
  const batch = async (charges: MandateCharge[]): Promise<TransactionReceipt> => send(hot, collector, chargeBatchData(charges));
  const state = async (t: MandateTerms): Promise<[bigint, bigint, bigint]> =>
    [...((await new Contract(collector, SUBSCRIPTION_COLLECTOR_ABI, provider).getFunction('mandateState')(mandateId(t))) as bigint[])] as [
      bigint,
      bigint,
      bigint,
    ];

  beforeAll(async () => {
    await buildContractsOutOfProcess();
    anvil = await startAnvil();
    provider = new JsonRpcProvider(anvil.rpcUrl, anvil.chainId, { batchMaxCount: 1, staticNetwork: true, pollingInterval: 20, cacheTimeout: -1 });
    chainId = anvil.chainId;
    const signers = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => provider.getSigner(i)));
    [owner, hot, payee] = signers as [JsonRpcSigner, JsonRpcSigner, JsonRpcSigner];
    subscribers = signers.slice(3);
    collector = (await deploySubscriptionCollector(owner, { collector: hot.address })).address;
    usdt = await deployTestToken(owner, TEST_TOKENS.USDT);
    for (const s of subscribers) await mintTestToken(owner, usdt, s.address, 100n * AMOUNT);
  }, 120_000);

  afterAll(async () => {
    provider?.destroy();
    await anvil?.close();
  });

  it('lands at the address predicted from the gateway key, once, and names that key', async () => {
    expect(collector).toBe(predictSubscriptionCollector(hot.address));
    expect(predictSubscriptionCollector(owner.address)).not.toBe(collector);
    expect(await deploySubscriptionCollector(owner, { collector: hot.address })).toEqual({ address: collector, deployed: false });
    expect(await new Contract(collector, SUBSCRIPTION_COLLECTOR_ABI, provider).getFunction('collector')()).toBe(hot.address);
  });

  it("the setup's two calls approve and authorise; the gateway reads both from the logs", async () => {
    const s = subscribers[0] as JsonRpcSigner;
    const t = await terms(s);
    const [approval, authorization] = await subscribe(s, t, 12n * AMOUNT);
    expect(collectorEventsOf(approval?.logs ?? [], collector)).toEqual([
      { type: 'approval', token: usdt, subscriber: s.address, allowance: 12n * AMOUNT, logIndex: expect.any(Number) as number },
    ]);
    const id = (await new Contract(collector, SUBSCRIPTION_COLLECTOR_ABI, provider).getFunction('mandateId')([
      t.subscriber,
      t.token,
      t.payee,
      t.perChargeCap,
      t.perPeriodCap,
      t.periodSeconds,
      t.start,
      t.salt,
    ])) as string;
    expect(id).toBe(mandateId(t));
    expect(collectorEventsOf(authorization?.logs ?? [], collector)).toEqual([
      { type: 'authorized', mandateId: id, terms: t, logIndex: expect.any(Number) as number },
    ]);
    expect(await state(t)).toEqual([1n, 0n, 0n]);
    // Authorising again changes nothing (no event, no reset); nobody but the subscriber may authorise by call.
    expect(
      collectorEventsOf((await send(s, collector, collectorSetup({ chainId, collector, terms: t, allowance: 1n * AMOUNT }).authorize.data)).logs, collector),
    ).toEqual([]);
    const other = subscribers[1] as JsonRpcSigner;
    expect(
      (await revertOf(other.address, collector, collectorSetup({ chainId, collector, terms: await terms(s), allowance: AMOUNT }).authorize.data)).name,
    ).toBe('NotSubscriber');
  });

  it('terms the subscriber signed (EIP-712) are authorised when the gateway submits them; other signatures are refused', async () => {
    const s = subscribers[1] as JsonRpcSigner;
    const t = await terms(s);
    const typed = mandateTypedData(t, { chainId, collector });
    const domainSeparator = (await new Contract(collector, SUBSCRIPTION_COLLECTOR_ABI, provider).getFunction('domainSeparator')()) as string;
    expect(domainSeparator).toBe(TypedDataEncoder.hashDomain(typed.domain));
    const signature = await s.signTypedData(typed.domain, typed.types, typed.message);
    expect(TypedDataEncoder.hash(typed.domain, typed.types, typed.message)).toBe(mandateDigest(t, { chainId, collector }));
    const forged = await (subscribers[2] as JsonRpcSigner).signTypedData(typed.domain, typed.types, typed.message);
    expect((await revertOf(hot.address, collector, authorizeWithSignatureData(t, forged))).name).toBe('BadSignature');
    // Signed terms changed by the submitter (a higher cap) are other terms: the signature does not cover them.
    expect((await revertOf(hot.address, collector, authorizeWithSignatureData({ ...t, perPeriodCap: 2n * AMOUNT }, signature))).name).toBe('BadSignature');
    const receipt = await send(hot, collector, authorizeWithSignatureData(t, signature));
    expect(collectorEventsOf(receipt.logs, collector)).toMatchObject([{ type: 'authorized', mandateId: mandateId(t), terms: t }]);
    expect((await state(t))[0]).toBe(1n);
  });

  it('charges once per period across three periods, the period opening with the clock, never going back', async () => {
    const s = subscribers[2] as JsonRpcSigner;
    const t = await terms(s);
    await subscribe(s, t, 12n * AMOUNT);
    const [payeeBefore, subscriberBefore] = [await balanceOf(usdt, payee.address), await balanceOf(usdt, s.address)];
    const id = mandateId(t);
    const at = (period: bigint): MandateCharge => ({ mandate: t, period, amount: AMOUNT });

    for (const period of [0n, 1n, 2n]) {
      if (period > 0n) {
        // Before the period opens, its charge is refused; once the clock reaches it, it goes through.
        expect(chargeOutcomesOf((await batch([at(period)])).logs, collector)).toEqual([
          { ok: false, mandateId: id, period, amount: AMOUNT, reason: 'period_not_open' },
        ]);
        await travel(MONTH);
      }
      expect(chargeOutcomesOf((await batch([at(period)])).logs, collector)).toEqual([{ ok: true, mandateId: id, period, amount: AMOUNT }]);
      // A repeated charge of the same period (a retried batch) is refused by the period cap.
      expect(chargeOutcomesOf((await batch([at(period)])).logs, collector)).toEqual([
        { ok: false, mandateId: id, period, amount: AMOUNT, reason: 'above_period_cap' },
      ]);
    }
    expect(chargeOutcomesOf((await batch([at(1n)])).logs, collector)).toEqual([
      { ok: false, mandateId: id, period: 1n, amount: AMOUNT, reason: 'period_passed' },
    ]);
    expect((await balanceOf(usdt, payee.address)) - payeeBefore).toBe(3n * AMOUNT);
    expect(subscriberBefore - (await balanceOf(usdt, s.address))).toBe(3n * AMOUNT);
    expect(await new Contract(usdt, ERC20_ABI, provider).getFunction('allowance')(s.address, collector)).toBe(9n * AMOUNT);
    expect(await state(t)).toEqual([1n, 2n, AMOUNT]);
  });

  it('refuses a charge above the per-charge cap, alone (reverting) and in a batch (reported), moving nothing', async () => {
    const s = subscribers[3] as JsonRpcSigner;
    const t = await terms(s, { perPeriodCap: 3n * AMOUNT });
    await subscribe(s, t);
    const before = await balanceOf(usdt, s.address);
    expect(await revertOf(hot.address, collector, chargeData({ mandate: t, period: 0n, amount: AMOUNT + 1n }))).toEqual({ name: 'ChargeRefused', args: [3n] });
    expect(chargeOutcomesOf((await batch([{ mandate: t, period: 0n, amount: AMOUNT + 1n }])).logs, collector)).toMatchObject([
      { ok: false, reason: 'above_charge_cap' },
    ]);
    expect(await balanceOf(usdt, s.address)).toBe(before);
    // At the cap, a single charge goes through.
    await send(hot, collector, chargeData({ mandate: t, period: 0n, amount: AMOUNT }));
    expect(before - (await balanceOf(usdt, s.address))).toBe(AMOUNT);
  });

  it('refuses a second charge of the same period over the period cap, and takes one that fits it exactly', async () => {
    const s = subscribers[4] as JsonRpcSigner;
    const t = await terms(s, { perPeriodCap: AMOUNT + AMOUNT / 2n });
    await subscribe(s, t);
    const before = await balanceOf(usdt, s.address);
    const receipt = await batch([
      { mandate: t, period: 0n, amount: AMOUNT },
      { mandate: t, period: 0n, amount: AMOUNT },
      { mandate: t, period: 0n, amount: AMOUNT / 2n },
    ]);
    expect(chargeOutcomesOf(receipt.logs, collector).map((o) => (o.ok ? 'ok' : o.reason))).toEqual(['ok', 'above_period_cap', 'ok']);
    expect(await revertOf(hot.address, collector, chargeData({ mandate: t, period: 0n, amount: 1n }))).toEqual({ name: 'ChargeRefused', args: [4n] });
    expect(before - (await balanceOf(usdt, s.address))).toBe(AMOUNT + AMOUNT / 2n);
    expect(await state(t)).toEqual([1n, 0n, AMOUNT + AMOUNT / 2n]);
  });

  it("charges only for the gateway's key", async () => {
    const s = subscribers[5] as JsonRpcSigner;
    const t = await terms(s);
    await subscribe(s, t);
    for (const caller of [owner, payee, s]) {
      expect((await revertOf(caller.address, collector, chargeData({ mandate: t, period: 0n, amount: AMOUNT }))).name).toBe('NotCollector');
      expect((await revertOf(caller.address, collector, chargeBatchData([{ mandate: t, period: 0n, amount: AMOUNT }]))).name).toBe('NotCollector');
    }
  });

  it("a revoked allowance, a revoked mandate or an unknown one fails that charge only; the batch's others are made", async () => {
    const [a, b, c] = [subscribers[0], subscribers[1], subscribers[2]] as JsonRpcSigner[];
    const ta = await terms(a as JsonRpcSigner);
    const tb = await terms(b as JsonRpcSigner);
    const tc = await terms(c as JsonRpcSigner);
    for (const [s, t] of [
      [a, ta],
      [b, tb],
      [c, tc],
    ] as const)
      await subscribe(s as JsonRpcSigner, t);
    // b revokes its allowance: approve(collector, 0).
    const revoked = await send(b as JsonRpcSigner, usdt, new Interface(ERC20_ABI).encodeFunctionData('approve', [collector, 0n]));
    expect(collectorEventsOf(revoked.logs, collector)).toMatchObject([{ type: 'approval', subscriber: (b as JsonRpcSigner).address, allowance: 0n }]);
    const unknown = await terms(subscribers[5] as JsonRpcSigner);
    const before = await Promise.all([a, b, c].map((s) => balanceOf(usdt, (s as JsonRpcSigner).address)));
    const receipt = await batch([ta, tb, tc, unknown].map((mandate) => ({ mandate, period: 0n, amount: AMOUNT })));
    expect(receipt.status).toBe(1);
    expect(chargeOutcomesOf(receipt.logs, collector).map((o) => (o.ok ? 'ok' : o.reason))).toEqual(['ok', 'transfer_failed', 'ok', 'not_authorized']);
    const failed = iface.decodeFunctionResult(
      'chargeBatch',
      await provider.call({ from: hot.address, to: collector, data: chargeBatchData([{ mandate: tb, period: 0n, amount: AMOUNT }]) }),
    )[0] as bigint;
    expect(failed).toBe(1n);
    const after = await Promise.all([a, b, c].map((s) => balanceOf(usdt, (s as JsonRpcSigner).address)));
    expect(before.map((x, i) => x - (after[i] ?? 0n))).toEqual([AMOUNT, 0n, AMOUNT]);
    // The failed charge left its mandate as it was: period 0 still chargeable in full.
    expect(await state(tb)).toEqual([1n, 0n, 0n]);
    expect(await state(ta)).toEqual([1n, 0n, AMOUNT]);

    // c revokes the mandate itself: its next period's charge fails, and it can never be authorised again.
    const revokedMandate = await send(c as JsonRpcSigner, collector, revokeData(tc));
    expect(collectorEventsOf(revokedMandate.logs, collector)).toEqual([
      { type: 'revoked', mandateId: mandateId(tc), subscriber: (c as JsonRpcSigner).address, logIndex: expect.any(Number) as number },
    ]);
    await travel(MONTH);
    expect(
      chargeOutcomesOf((await batch([ta, tc].map((mandate) => ({ mandate, period: 1n, amount: AMOUNT })))).logs, collector).map((o) =>
        o.ok ? 'ok' : o.reason,
      ),
    ).toEqual(['ok', 'revoked']);
    const again = collectorSetup({ chainId, collector, terms: tc, allowance: AMOUNT }).authorize.data;
    expect((await revertOf((c as JsonRpcSigner).address, collector, again)).name).toBe('MandateRevokedAlready');
  });

  it('a contract wallet authorises by ERC-1271: its owner signs, the gateway submits, the wallet is charged', async () => {
    const walletOwner = subscribers[5] as JsonRpcSigner;
    const artifact = loadArtifact('ContractWallet');
    const deployed = await new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode, owner).deploy(walletOwner.address);
    await deployed.waitForDeployment();
    const wallet = await deployed.getAddress();
    const execute = new Interface(artifact.abi as InterfaceAbi);
    await mintTestToken(owner, usdt, wallet, 2n * AMOUNT);
    const t = { ...(await terms(walletOwner)), subscriber: wallet };
    const setup = collectorSetup({ chainId, collector, terms: t, allowance: 2n * AMOUNT });
    await send(walletOwner, wallet, execute.encodeFunctionData('execute', [setup.approve.to, setup.approve.data]));
    const typed = setup.typedData;
    const stranger = await (subscribers[0] as JsonRpcSigner).signTypedData(typed.domain, typed.types, typed.message);
    expect((await revertOf(hot.address, collector, authorizeWithSignatureData(t, stranger))).name).toBe('BadSignature');
    const signature = await walletOwner.signTypedData(typed.domain, typed.types, typed.message);
    expect(collectorEventsOf((await send(hot, collector, authorizeWithSignatureData(t, signature))).logs, collector)).toMatchObject([
      { type: 'authorized', mandateId: mandateId(t), terms: t },
    ]);
    expect(chargeOutcomesOf((await batch([{ mandate: t, period: 0n, amount: AMOUNT }])).logs, collector)).toMatchObject([{ ok: true }]);
    expect(await balanceOf(usdt, wallet)).toBe(AMOUNT);
  });

  it('charges a USDT-style token (no return value) and reports its refusal', async () => {
    const artifact = loadArtifact('NoReturnToken');
    const deployed = await new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode, owner).deploy();
    await deployed.waitForDeployment();
    const token = await deployed.getAddress();
    const s = subscribers[4] as JsonRpcSigner;
    await (await new Contract(token, artifact.abi as InterfaceAbi, owner).getFunction('mint')(s.address, AMOUNT + 1n)).wait();
    const t = await terms(s, { token, perPeriodCap: 2n * AMOUNT });
    await subscribe(s, t, 10n * AMOUNT);
    const receipt = await batch([
      { mandate: t, period: 0n, amount: AMOUNT },
      // Only 1 unit left: the token reverts, the charge is reported failed.
      { mandate: t, period: 0n, amount: 2n },
    ]);
    expect(chargeOutcomesOf(receipt.logs, collector).map((o) => (o.ok ? 'ok' : o.reason))).toEqual(['ok', 'transfer_failed']);
    expect(await balanceOf(token, payee.address)).toBe(AMOUNT);
    expect(await balanceOf(token, s.address)).toBe(1n);
    expect(await state(t)).toEqual([1n, 0n, AMOUNT]);
  });

  it("finds every mandate's approval and authorisation of a block range with the log filters", async () => {
    const from = await provider.getBlockNumber();
    const s = subscribers[3] as JsonRpcSigner;
    const t = await terms(s);
    await subscribe(s, t, 5n * AMOUNT);
    // An approval of another spender is not the collector's.
    await send(s, usdt, new Interface(ERC20_ABI).encodeFunctionData('approve', [payee.address, 1n]));
    const logs = (await Promise.all(collectorLogFilters(collector).map((f) => provider.getLogs({ ...f, fromBlock: from + 1 })))).flat();
    logs.sort((a, b) => a.blockNumber - b.blockNumber || a.index - b.index);
    expect(collectorEventsOf(logs, collector).map((e) => e.type)).toEqual(['approval', 'authorized']);
  });

  it('refuses malformed batches: words not three a charge, more than 256 charges, a token without code', async () => {
    const data = (token: string, words: bigint[]) => iface.encodeFunctionData('chargeBatch', [token, payee.address, words]);
    expect((await revertOf(hot.address, collector, data(usdt, [1n, 2n, 3n, 4n]))).name).toBe('MalformedCharges');
    expect(
      (
        await revertOf(
          hot.address,
          collector,
          data(
            usdt,
            Array.from({ length: 3 * 257 }, () => 1n),
          ),
        )
      ).name,
    ).toBe('TooManyCharges');
    expect((await revertOf(hot.address, collector, data(payee.address, [1n, 2n, 3n]))).name).toBe('NotAContract');
  });

  it('keeps the human-readable ABI in step with the compiled contract', () => {
    const sigs = (i: Interface): string[] => {
      const out: string[] = [];
      i.forEachFunction((f) => out.push(f.format('minimal')));
      i.forEachEvent((e) => out.push(e.format('minimal')));
      i.forEachError((e) => out.push(e.format('minimal')));
      return out.sort();
    };
    expect(sigs(iface)).toEqual(sigs(new Interface(loadArtifact('SubscriptionCollector').abi)));
  });

  it('charges 50 subscribers in one batch for at most 0.7 of the gas of a plain transfer each (exact figures)', async () => {
    const g = await benchCollectorGas({ charges: 50 });
    expect(g.transferToPayeeGas).toBe(34_379n);
    expect(g.transferToNewHolderGas).toBe(51_491n);
    expect(g.batchGas).toBe(1_195_268n);
    expect(g.perCharge).toBe(23_905n);
    expect(g.ratio).toBeLessThanOrEqual(0.7);
  }, 120_000);
});
