import { jest } from '@jest/globals';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { resultAsRouted } from '../../support/chain-results.js';
import { Contract, ContractFactory, Wallet } from 'ethers';
import type { InterfaceAbi, JsonRpcSigner } from 'ethers';
import { ensureForwarderFactory } from '../../../infra/local/dev/deploy.js';
import type { CrashPoint } from '../../../shared/usecases/chain-tx/ports.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import { isFinal, requestIdOf } from '../../../shared/domain/chain-tx.js';
import { loadArtifact } from '../../../shared/chain/evm/artifacts.js';
import { jsonRpcChain } from '../../../shared/chain/evm/scanner.js';
import { evmDepositSource } from '../../../shared/chain/evm/deposit-source.js';
import type { EvmChainPort } from '../../../shared/chain/evm/scanner.js';
import { config, resetConfig } from '../../../shared/config/config.js';
import type { PaymentState } from '../../../shared/domain/payments.js';
import { scannerRuntime } from '../../../shared/runtime/payments.js';
import { factoryOf } from '../../../shared/runtime/deposit-addresses.js';
import { dynamoChainTxStore } from '../../../shared/store/chain-tx.js';
import { getBalance, listAllEntries } from '../../../shared/store/ledger.js';
import { getPayment } from '../../../shared/store/payments.js';
import type { ChainTxDeps } from '../../../shared/usecases/chain-tx/ports.js';
import { followOnce } from '../../../shared/usecases/chain-tx/follow-chain-txs.js';
import { processChainTx } from '../../../shared/usecases/chain-tx/process-chain-tx.js';
import type { ScanDeps } from '../../../shared/usecases/scanner/scan.js';
import { initCursor, scanOnce } from '../../../shared/usecases/scanner/scan.js';
import type { SweepPort } from '../../../shared/usecases/payments/settle.js';
import { SWEEP_RECOVERY_AFTER_MS } from '../../../shared/usecases/payments/settle.js';
import { engineSweep } from '../../../shared/usecases/payments/sweep-engine.js';
import { factoryCalls } from '../../../shared/chain/evm/factory-calls.js';
import { VirtualClock } from '../../support/clock.js';
import { buildContractsOutOfProcess } from '../chain/contracts-build.js';
import { SimulatedCrash, startEngineEnv } from '../chain-engine/support.js';
import type { EngineEnv } from '../chain-engine/support.js';
import { caller, putFixedRates, tenantWithToken } from './support.js';

/**
 * Batched sweeps end to end on anvil, the local KMS endpoint and DynamoDB Local: payments confirmed in one scanner
 * pass are saved `sending` once each (confirmed and sending composed) and swept by ONE chain-tx request
 * (`deployAndFlush` of all their salts, signed by the engine), whose result, delivered to the chain-results worker
 * (twice), completes and credits each exactly once. A batch that reverts on chain puts all its payments back to
 * confirmed, each then swept alone; a pass that dies before its request, or a batch that cannot be estimated (a
 * deposit the token refuses to move), is recovered by a later pass. The token is a 6-decimal ERC-20 whose owner may
 * block an address (as USDT does).
 */
const ETH = 'ETH';
const CURRENCY = 'USDTERC20';

type Handler = (event: SQSEvent) => Promise<SQSBatchResponse>;

describe('batched sweeps: one pass -> one chain transaction -> each payment completed once', () => {
  let env: EngineEnv;
  let hot: { keyId: string; address: string };
  let admin: JsonRpcSigner;
  let token: Contract;
  let tokenAddress: string;
  let factory: string;
  let treasury: string;
  let tenantId: string;
  let call: ReturnType<typeof caller>;
  let chainResults: Handler;
  let chain: EvmChainPort;
  let quiet: { mockRestore(): void }[] = [];
  const clock = new VirtualClock(new Date());

  /** Engine deps of one processor: every network is the anvil chain. */
  const engine = (crash?: (point: CrashPoint, tx: ChainTx) => void): ChainTxDeps => {
    const base = env.deps({ crash });
    const c = base.chain('anvil');
    return { ...base, chain: () => c };
  };
  const sweepPort = (): SweepPort =>
    engineSweep({
      factoryOf: (network) => factoryOf(config(), network),
      wallet: async () => hot,
      engine: { store: dynamoChainTxStore, clock: () => clock.now() },
      calls: factoryCalls,
    });
  const scanDeps = (sweep: SweepPort = sweepPort()): ScanDeps => ({ ...scannerRuntime(config()), clock, source: evmDepositSource(chain), sweep });
  const scan = (sweep?: SweepPort) => scanOnce(ETH, scanDeps(sweep));

  const balanceOf = async (address: string): Promise<bigint> => (await token.getFunction('balanceOf')(address)) as bigint;
  const reread = async (p: PaymentState): Promise<PaymentState> => {
    const got = await getPayment(p.tenantId, p.id);
    if (!got) throw new Error('gone');
    return got;
  };
  const credits = async (p: PaymentState): Promise<number> => (await listAllEntries(tenantId)).filter((e) => e.id === `payment:${p.id}`).length;

  /** New payments of `amounts` USDT, each paid in full to its deposit address, all in one block. */
  async function paidPayments(amounts: readonly number[]): Promise<PaymentState[]> {
    const out: PaymentState[] = [];
    for (const amount of amounts) {
      const res = await call('POST', '/payments/', { body: { amount: String(amount), currency: CURRENCY } });
      expect(res.status).toBe(201);
      const p = await getPayment(tenantId, res.body.transaction_id as string);
      if (!p) throw new Error('not stored');
      out.push(p);
    }
    await env.provider.send('evm_setAutomine', [false]);
    try {
      const sent: { wait(): Promise<unknown> }[] = [];
      for (const [i, p] of out.entries()) sent.push(await token.getFunction('mint')(p.address, BigInt(amounts[i] ?? 0) * 1_000_000n));
      await env.provider.send('anvil_mine', ['0x1']);
      await Promise.all(sent.map((tx) => tx.wait()));
    } finally {
      await env.provider.send('evm_setAutomine', [true]);
    }
    return out;
  }

  /** Two passes: the deposits are seen (confirming), then a block later confirmed and swept. */
  async function confirmAndSweep(payments: readonly PaymentState[], sweep?: SweepPort): Promise<void> {
    await scan(sweep);
    for (const p of payments) expect((await reread(p)).status).toBe('confirming');
    await env.provider.send('anvil_mine', ['0x1']);
    await scan(sweep);
  }

  async function followUntilFinal(requestId: string): Promise<ChainTx> {
    const d = engine();
    for (let i = 0; i < 40; i++) {
      const tx = await dynamoChainTxStore.get(requestId);
      if (tx && isFinal(tx)) return tx;
      await followOnce(ETH, d);
    }
    throw new Error(`${requestId} did not become final`);
  }

  /** The chain-results worker gets the request's result as the event router sends it (`times` copies in one batch). */
  async function deliver(tx: ChainTx, times = 1): Promise<void> {
    expect((await chainResults(await resultAsRouted(tx, times))).batchItemFailures).toEqual([]);
  }

  /** Sweeps each payment's own request (after a failed batch), and delivers each result. */
  async function sweepEachAlone(payments: readonly PaymentState[], batch: string): Promise<void> {
    for (const p of payments) {
      const stored = await reread(p);
      expect(stored).toMatchObject({ status: 'sending' });
      expect(stored.sweepReference).not.toBe(batch);
      const requestId = requestIdOf(ETH, stored.sweepReference ?? '');
      expect((await dynamoChainTxStore.get(requestId))?.items).toEqual([`${tenantId}:${p.id}`]);
      await processChainTx(requestId, engine());
      const tx = await followUntilFinal(requestId);
      expect(tx.status).toBe('confirmed');
      await deliver(tx);
    }
  }

  beforeAll(async () => {
    const started = await Promise.allSettled([startEngineEnv(), buildContractsOutOfProcess()] as const);
    if (started[0].status === 'fulfilled') env = started[0].value;
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    admin = await env.provider.getSigner(0);
    treasury = Wallet.createRandom().address;
    hot = await env.wallet(10n);
    const artifact = loadArtifact('BlocklistToken');
    const deployed = await new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode, admin).deploy(admin.address);
    await deployed.waitForDeployment();
    tokenAddress = await deployed.getAddress();
    token = new Contract(tokenAddress, artifact.abi as InterfaceAbi, admin);
    factory = (await ensureForwarderFactory(admin, { owner: admin.address, hotWallet: hot.address, treasury })).factory;

    Object.assign(process.env, {
      EVM_RPC_URLS: JSON.stringify({ [ETH]: env.anvil.rpcUrl }),
      AWS_ENDPOINT_URL_KMS: env.kmsServer.url,
      FORWARDER_FACTORIES: JSON.stringify({ [ETH]: factory }),
      TOKEN_CONTRACTS: JSON.stringify({ [CURRENCY]: tokenAddress }),
      HOT_WALLET_KEY_ID: hot.keyId,
      CHAIN_TX_CONFIRMATIONS: '1',
      PAYMENT_CONFIRMATIONS: '2',
    });
    resetConfig();
    await putFixedRates();
    const t = await tenantWithToken('Batched sweeps');
    tenantId = t.tenantId;
    call = caller((await import('../../../functions/payments/handler.js')).handler, () => t.bearer);
    chainResults = (await import('../../../functions/chain-results/handler.js')).handler;
    chain = jsonRpcChain(env.anvil.rpcUrl);
    await initCursor(ETH, await chain.blockNumber(), scanDeps());
  });

  beforeEach(() => {
    quiet = [jest.spyOn(console, 'log').mockImplementation(() => undefined), jest.spyOn(console, 'error').mockImplementation(() => undefined)];
  });

  afterEach(() => {
    for (const spy of quiet) spy.mockRestore();
  });

  afterAll(async () => {
    chain?.close();
    await env?.stop();
  });

  test('payments confirmed in one pass: one save each, one chain transaction, each completed and credited exactly once', async () => {
    const payments = await paidPayments([10, 20, 30]);
    const treasuryBefore = await balanceOf(treasury);
    await confirmAndSweep(payments);

    const stored = await Promise.all(payments.map(reread));
    const reference = stored[0]?.sweepReference ?? '';
    expect(reference).toMatch(/^sweep:/);
    // Created (1), deposit seen (2), confirmed and sending in one save (3).
    for (const p of stored) expect(p).toMatchObject({ status: 'sending', sweepReference: reference, version: 3 });
    const requestId = requestIdOf(ETH, reference);
    expect(await dynamoChainTxStore.get(requestId)).toMatchObject({
      purpose: 'sweep',
      tenantId: 'platform',
      to: factory,
      items: payments.map((p) => `${tenantId}:${p.id}`),
      status: 'queued',
    });
    // A pass before the result asks for nothing more.
    await scan();
    for (const p of payments) expect(await reread(p)).toMatchObject({ status: 'sending', version: 3 });

    await processChainTx(requestId, engine());
    const tx = await followUntilFinal(requestId);
    expect(tx.status).toBe('confirmed');
    expect(tx.attempts).toHaveLength(1);
    expect(await balanceOf(treasury)).toBe(treasuryBefore + 60_000_000n);
    for (const p of payments) expect(await balanceOf(p.address)).toBe(0n);

    await deliver(tx, 2);
    for (const p of payments) {
      expect(await reread(p)).toMatchObject({ status: 'completed', sweepTxHash: tx.mined?.hash });
      expect(await credits(p)).toBe(1);
    }
    // 60 USDT received, the merchant pays the 1 % fee.
    expect((await getBalance(tenantId, 'main', CURRENCY)).amount).toBe('59.4');
    // A late copy of the result changes nothing.
    await deliver(tx);
    expect((await getBalance(tenantId, 'main', CURRENCY)).amount).toBe('59.4');
  });

  test('a batch that reverts puts every payment back to confirmed; each is then swept alone and credited once', async () => {
    const before = (await getBalance(tenantId, 'main', CURRENCY)).amount;
    const payments = await paidPayments([11, 12, 13]);
    await confirmAndSweep(payments);
    const reference = (await reread(payments[0] as PaymentState)).sweepReference ?? '';
    const requestId = requestIdOf(ETH, reference);
    // Signed and persisted, then the treasury is blocked before the bytes reach the chain: the sweep reverts.
    await expect(
      processChainTx(
        requestId,
        engine((point) => {
          if (point === 'after_persist') throw new SimulatedCrash(point);
        }),
      ),
    ).rejects.toThrow(SimulatedCrash);
    await (await token.getFunction('setBlocked')(treasury, true)).wait();
    const reverted = await followUntilFinal(requestId);
    expect(reverted.status).toBe('reverted');
    await (await token.getFunction('setBlocked')(treasury, false)).wait();

    await deliver(reverted, 2);
    for (const p of payments) {
      expect(await reread(p)).toMatchObject({ status: 'confirmed', sweepReference: reference, merchantReceived: null });
      expect(await credits(p)).toBe(0);
      expect(await balanceOf(p.address)).toBeGreaterThan(0n);
    }
    expect((await getBalance(tenantId, 'main', CURRENCY)).amount).toBe(before);

    await scan();
    await sweepEachAlone(payments, reference);
    for (const p of payments) {
      expect(await reread(p)).toMatchObject({ status: 'completed' });
      expect(await credits(p)).toBe(1);
      expect(await balanceOf(p.address)).toBe(0n);
    }
    // 36 USDT at a 1 % fee.
    expect(Number((await getBalance(tenantId, 'main', CURRENCY)).amount) - Number(before)).toBeCloseTo(35.64, 6);
  });

  test('a pass that dies before its request: its payments are recovered once idle, the reference claimed', async () => {
    const payments = await paidPayments([14, 15]);
    const real = sweepPort();
    const dying: SweepPort = {
      ...real,
      requestSweep: async () => {
        throw new Error('the pass died');
      },
    };
    await scan(dying);
    await env.provider.send('anvil_mine', ['0x1']);
    await expect(scan(dying)).rejects.toThrow('the pass died');
    const reference = (await reread(payments[0] as PaymentState)).sweepReference ?? '';
    for (const p of payments) expect(await reread(p)).toMatchObject({ status: 'sending', sweepReference: reference });
    expect(await dynamoChainTxStore.get(requestIdOf(ETH, reference))).toBeUndefined();

    clock.advance(SWEEP_RECOVERY_AFTER_MS + 1_000);
    await scan();
    // Claimed: a late request under that reference is refused.
    expect(await dynamoChainTxStore.get(requestIdOf(ETH, reference))).toMatchObject({ status: 'cancelled', data: '0x' });
    await expect(real.requestSweep({ reference, network: ETH, currency: CURRENCY, token: tokenAddress, salts: [], items: [] })).rejects.toThrow();
    await sweepEachAlone(payments, reference);
    for (const p of payments) expect(await credits(p)).toBe(1);
  });

  test('a batch that cannot be estimated (a deposit the token refuses to move) is cancelled once idle: the others complete alone', async () => {
    const payments = await paidPayments([16, 17, 18]);
    const [, poisoned] = payments as [PaymentState, PaymentState, PaymentState];
    await confirmAndSweep(payments);
    await (await token.getFunction('setBlocked')(poisoned.address, true)).wait();
    const reference = (await reread(poisoned)).sweepReference ?? '';
    const requestId = requestIdOf(ETH, reference);
    await processChainTx(requestId, engine());
    expect(await dynamoChainTxStore.get(requestId)).toMatchObject({ status: 'queued', reason: 'estimate_failed' });

    clock.advance(SWEEP_RECOVERY_AFTER_MS + 1_000);
    await scan();
    expect((await dynamoChainTxStore.get(requestId))?.status).toBe('cancelled');
    const healthy = payments.filter((p) => p.id !== poisoned.id);
    await sweepEachAlone(healthy, reference);
    for (const p of healthy) expect(await reread(p)).toMatchObject({ status: 'completed' });

    // The poisoned one's own sweep cannot be estimated either: it stays sending (for the stuck-sweep alarm).
    const alone = await reread(poisoned);
    expect(alone).toMatchObject({ status: 'sending' });
    const own = requestIdOf(ETH, alone.sweepReference ?? '');
    await processChainTx(own, engine());
    clock.advance(SWEEP_RECOVERY_AFTER_MS + 1_000);
    await scan();
    expect(await dynamoChainTxStore.get(own)).toMatchObject({ status: 'queued', reason: 'estimate_failed' });
    expect(await reread(poisoned)).toMatchObject({ status: 'sending', sweepReference: alone.sweepReference, version: alone.version });
    expect(await credits(poisoned)).toBe(0);
  });
});
