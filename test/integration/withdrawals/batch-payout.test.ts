import { jest } from '@jest/globals';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { resultAsRouted } from '../../support/chain-results.js';
import { Contract, ContractFactory, Interface, Transaction, Wallet } from 'ethers';
import type { InterfaceAbi, JsonRpcSigner } from 'ethers';
import { deployBatchPayout } from '../../../infra/local/dev/deploy.js';
import type { CrashPoint } from '../../../shared/usecases/chain-tx/ports.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import { requestIdOf, trackedHashes } from '../../../shared/domain/chain-tx.js';
import { ERC20_ABI } from '../../../shared/chain/evm/abi.js';
import { loadArtifact } from '../../../shared/chain/evm/artifacts.js';
import { resetConfig } from '../../../shared/config/config.js';
import { ConflictError } from '../../../shared/domain/errors.js';
import { toBaseUnits } from '../../../shared/domain/money.js';
import type { WithdrawalState } from '../../../shared/domain/withdrawals.js';
import { dynamoChainTxStore } from '../../../shared/store/chain-tx.js';
import { getBalance, listAllEntries } from '../../../shared/store/ledger.js';
import { dynamoWithdrawals } from '../../../shared/store/withdrawals.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import type { ChainTxDeps } from '../../../shared/usecases/chain-tx/ports.js';
import { followOnce } from '../../../shared/usecases/chain-tx/follow-chain-txs.js';
import { processChainTx } from '../../../shared/usecases/chain-tx/process-chain-tx.js';
import { requestChainTx } from '../../../shared/usecases/chain-tx/request-chain-tx.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { approvalReference } from '../../../shared/usecases/withdrawals/batch.js';
import type { BatcherDeps } from '../../../shared/usecases/withdrawals/ports.js';
import { runWithdrawalBatch } from '../../../shared/usecases/withdrawals/process.js';
import { buildContractsOutOfProcess } from '../chain/contracts-build.js';
import { NETWORK, SimulatedCrash, startEngineEnv } from '../chain-engine/support.js';
import type { EngineEnv } from '../chain-engine/support.js';
import { caller, putFixedRates, tenantWithToken } from '../payments/support.js';
import { batcherDeps } from '../../support/withdrawals.js';

/**
 * Batch payouts end to end on anvil, the local KMS endpoint and DynamoDB Local: the batcher pays pending USDTERC20
 * withdrawals in ONE BatchPayout transaction (the token here reverts for a blocked recipient, as USDT does), the
 * engine signs it once and follows it, and the chain-results worker completes each paid item exactly once from the
 * receipt's Payouts event; an unpaid item goes singly, and its own transfer's result settles it. Balances are
 * checked on chain and in the ledger, and the hot wallet's nonces have no gap.
 */
const ETH = 'ETH';
const CURRENCY = 'USDTERC20';
const FUNDING = '100000';

type Handler = (event: SQSEvent) => Promise<SQSBatchResponse>;

describe('batch payouts: batcher -> one chain transaction -> settlement per item', () => {
  let env: EngineEnv;
  let hot: { keyId: string; address: string };
  let admin: JsonRpcSigner;
  let token: Contract;
  let tokenAddress: string;
  let contract: string;
  let tenantId: string;
  let call: ReturnType<typeof caller>;
  let chainResults: Handler;
  let quiet: { mockRestore(): void }[] = [];
  const erc20 = new Interface(ERC20_ABI);

  /** Engine deps of one processor for the ETH network (the anvil chain). */
  const engine = (crash?: (point: CrashPoint, tx: ChainTx) => void): ChainTxDeps => {
    const base = env.deps({ crash });
    const chain = base.chain(NETWORK);
    return { ...base, chain: () => chain };
  };
  const deps = (now: () => Date = () => new Date(), chainTx: BatcherDeps['chainTx'] = { store: dynamoChainTxStore, clock: now }): BatcherDeps => ({
    ...batcherDeps({ wallet: async () => hot, chainTx, tokenContract: (code) => (code === CURRENCY ? tokenAddress : null), now }),
    batchPayout: { contract, maxItems: 50 },
  });

  const tokenBalance = async (address: string): Promise<bigint> =>
    BigInt(await env.provider.call({ to: tokenAddress, data: erc20.encodeFunctionData('balanceOf', [address]) }));

  async function followUntilFinal(requestIds: readonly string[]): Promise<ChainTx[]> {
    const d = engine();
    for (let i = 0; i < 40; i++) {
      const txs = await Promise.all(requestIds.map((id) => dynamoChainTxStore.get(id)));
      if (txs.every((tx) => tx !== undefined && ['confirmed', 'reverted', 'failed'].includes(tx.status))) return txs as ChainTx[];
      await followOnce(ETH, d);
    }
    throw new Error('requests did not become final');
  }

  /** The chain-results worker gets the request's result as the event router sends it (`times` copies in one batch). */
  async function deliver(tx: ChainTx, times = 1): Promise<void> {
    expect((await chainResults(await resultAsRouted(tx, times))).batchItemFailures).toEqual([]);
  }

  const create = async (amount: string, to = Wallet.createRandom().address): Promise<WithdrawalState> => {
    const res = await call('POST', '/withdrawal/', { body: { amount, currency: CURRENCY, address: to } });
    expect(res.status).toBe(201);
    const w = await dynamoWithdrawals.get(tenantId, res.body.id as string);
    if (!w) throw new Error('not stored');
    return w;
  };
  const reread = async (w: WithdrawalState): Promise<WithdrawalState> => {
    const got = await dynamoWithdrawals.get(tenantId, w.id);
    if (!got) throw new Error('gone');
    return got;
  };
  const entryTypes = async (w: WithdrawalState): Promise<string[]> =>
    (await listAllEntries(tenantId))
      .filter((e) => e.reference?.id === w.id)
      .map((e) => e.type)
      .sort();
  /** Every hot-wallet nonce 0..n-1 was mined exactly once, by the requests given. */
  const expectNoNonceGap = async (txs: readonly ChainTx[]): Promise<void> => {
    const mined = await env.provider.getTransactionCount(hot.address, 'latest');
    const nonces = txs.filter((t) => t.mined).map((t) => t.nonce);
    expect([...nonces].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(Array.from({ length: mined }, (_, i) => i));
  };
  const sent: ChainTx[] = [];

  beforeAll(async () => {
    const started = await Promise.allSettled([startEngineEnv(), buildContractsOutOfProcess()] as const);
    if (started[0].status === 'fulfilled') env = started[0].value;
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    admin = await env.provider.getSigner(0);
    hot = await env.wallet(10n);
    const artifact = loadArtifact('BlocklistToken');
    const deployed = await new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode, admin).deploy(admin.address);
    await deployed.waitForDeployment();
    tokenAddress = await deployed.getAddress();
    token = new Contract(tokenAddress, artifact.abi as InterfaceAbi, admin);
    await (await token.getFunction('mint')(hot.address, toBaseUnits(FUNDING, 6))).wait();
    contract = (await deployBatchPayout(admin, { hotWallet: hot.address })).address;

    Object.assign(process.env, {
      EVM_RPC_URLS: JSON.stringify({ [ETH]: env.anvil.rpcUrl }),
      AWS_ENDPOINT_URL_KMS: env.kmsServer.url,
      TOKEN_CONTRACTS: JSON.stringify({ [CURRENCY]: tokenAddress }),
      HOT_WALLET_KEY_ID: hot.keyId,
      CHAIN_TX_CONFIRMATIONS: '1',
    });
    resetConfig();
    await putFixedRates();
    const t = await tenantWithToken('Batch payouts');
    tenantId = t.tenantId;
    await creditAdjustment({ tenant_id: tenantId, currency: CURRENCY, amount: FUNDING, reason: 'test funding' }, ledgerRuntime());
    call = caller((await import('../../../functions/withdrawals/handler.js')).handler, () => t.bearer);
    chainResults = (await import('../../../functions/chain-results/handler.js')).handler;
  });

  beforeEach(() => {
    quiet = [jest.spyOn(console, 'log').mockImplementation(() => undefined), jest.spyOn(console, 'error').mockImplementation(() => undefined)];
  });

  afterEach(() => {
    for (const spy of quiet) spy.mockRestore();
  });

  afterAll(async () => {
    await env?.stop();
  });

  test('until the approval of the batch contract is confirmed, withdrawals go singly; the batcher asks for it once', async () => {
    const [a, b] = [await create('10'), await create('11')];
    expect(await runWithdrawalBatch(deps())).toMatchObject({ processing: 2, skipped: 0 });
    const approval = await dynamoChainTxStore.get(requestIdOf(ETH, approvalReference(contract, tokenAddress)));
    expect(approval).toMatchObject({ purpose: 'batch_payout_approval', status: 'queued', tenantId: 'platform' });
    for (const w of [a, b]) {
      const stored = await reread(w);
      expect(stored.status).toBe('processing');
      expect(stored.batch).toBeUndefined();
    }
    const ids = [approval?.requestId, requestIdOf(ETH, a.id), requestIdOf(ETH, b.id)] as string[];
    for (const id of ids) await processChainTx(id, engine());
    const done = await followUntilFinal(ids);
    expect(done.map((t) => t.status)).toEqual(['confirmed', 'confirmed', 'confirmed']);
    sent.push(...done);
    for (const tx of done.slice(1)) await deliver(tx);
    for (const w of [a, b]) expect((await reread(w)).status).toBe('completed');
    expect(await new Contract(tokenAddress, ERC20_ABI, env.provider).getFunction('allowance')(hot.address, contract)).toBe(2n ** 256n - 1n);
  });

  test('a batch with one blocked recipient pays the others exactly once; the blocked one goes singly, fails, and its funds return', async () => {
    const blocked = Wallet.createRandom().address;
    await (await token.getFunction('setBlocked')(blocked, true)).wait();
    const before = await getBalance(tenantId, 'main', CURRENCY);
    const amounts = ['12.5', '13', '14.25', '15', '16'];
    const created: WithdrawalState[] = [];
    for (const [i, amount] of amounts.entries()) created.push(await create(amount, i === 2 ? blocked : undefined));
    const hotBefore = await tokenBalance(hot.address);

    expect(await runWithdrawalBatch(deps())).toMatchObject({ processing: 5, skipped: 0 });
    const stored = await Promise.all(created.map(reread));
    const reference = stored[0]?.batch?.reference ?? '';
    expect(reference).toMatch(/^withdrawal-batch:/);
    for (const w of stored) expect(w).toMatchObject({ status: 'processing', batch: { reference, single: false } });
    const batchId = requestIdOf(ETH, reference);
    expect(await dynamoChainTxStore.get(batchId)).toMatchObject({
      purpose: 'withdrawal_batch',
      to: contract,
      items: created.map((w) => `${tenantId}:${w.id}`),
      status: 'queued',
    });
    // No single request for any of them.
    for (const w of created) expect(await dynamoChainTxStore.get(requestIdOf(ETH, w.id))).toBeUndefined();

    await processChainTx(batchId, engine());
    const [batch] = await followUntilFinal([batchId]);
    if (!batch) throw new Error('no batch');
    expect(batch.status).toBe('confirmed');
    expect(batch.attempts).toHaveLength(1);
    sent.push(batch);
    await deliver(batch, 2);

    const paid = created.filter((_, i) => i !== 2);
    for (const w of paid) {
      expect(await reread(w)).toMatchObject({ status: 'completed', transactionHash: batch.mined?.hash });
      expect(await tokenBalance(w.address)).toBe(toBaseUnits(w.amount, 6));
      expect(await entryTypes(w)).toEqual(['withdrawal', 'withdrawal_hold']);
    }
    const lone = created[2] as WithdrawalState;
    expect(await reread(lone)).toMatchObject({ status: 'processing', batch: { reference, single: true } });
    expect(await tokenBalance(blocked)).toBe(0n);
    const paidUnits = paid.reduce((sum, w) => sum + toBaseUnits(w.amount, 6), 0n);
    expect(hotBefore - (await tokenBalance(hot.address))).toBe(paidUnits);

    // Its own transfer: the token refuses it again, the transaction reverts, the withdrawal fails with its funds back.
    const singleId = requestIdOf(ETH, lone.id);
    expect(await dynamoChainTxStore.get(singleId)).toMatchObject({ purpose: 'withdrawal', reference: lone.id, to: tokenAddress });
    // The engine does not send a transfer whose estimate reverts (it waits, in sight of the stuck alarm): a fixed
    // gas limit sends this one anyway, so that its revert is mined and settled.
    const single = (await dynamoChainTxStore.get(singleId)) as ChainTx;
    await dynamoChainTxStore.save(single, { state: { ...single, gasLimit: 100_000n }, events: [], effects: [] });
    await processChainTx(singleId, engine());
    const [failed] = await followUntilFinal([singleId]);
    if (!failed) throw new Error('no single');
    expect(failed.status).toBe('reverted');
    sent.push(failed);
    await deliver(failed);
    expect(await reread(lone)).toMatchObject({ status: 'failed' });
    expect(await entryTypes(lone)).toEqual(['withdrawal_hold', 'withdrawal_release']);
    expect(await tokenBalance(blocked)).toBe(0n);

    // The ledger: only the four paid left the tenant's balance.
    const debited = paid.reduce((sum, w) => sum + Number(w.totalDeducted), 0);
    const after = await getBalance(tenantId, 'main', CURRENCY);
    expect(Number(before.amount) - Number(after.amount)).toBeCloseTo(debited, 6);
    expect(after.locked).toBe('0');
    await expectNoNonceGap(sent);
  });

  test('a crash between signing and broadcasting a batch sends it once', async () => {
    const created = [await create('20'), await create('21'), await create('22')];
    expect(await runWithdrawalBatch(deps())).toMatchObject({ processing: 3 });
    const reference = (await reread(created[0] as WithdrawalState)).batch?.reference ?? '';
    const batchId = requestIdOf(ETH, reference);
    const dying = (point: CrashPoint): ChainTxDeps =>
      engine((at) => {
        if (at === point) throw new SimulatedCrash(at);
      });
    // Signed, then killed before the bytes were persisted: thrown away, never sent.
    await expect(processChainTx(batchId, dying('after_sign'))).rejects.toBeInstanceOf(SimulatedCrash);
    expect(await dynamoChainTxStore.get(batchId)).toMatchObject({ status: 'allocated', attempts: [] });
    // Signed and persisted, killed before the broadcast.
    await expect(processChainTx(batchId, dying('after_persist'))).rejects.toBeInstanceOf(SimulatedCrash);
    const persisted = (await dynamoChainTxStore.get(batchId)) as ChainTx;
    expect(persisted).toMatchObject({ status: 'signed' });
    expect(persisted.attempts).toHaveLength(1);
    // Redelivered twice at once: the same bytes go out.
    await Promise.all([processChainTx(batchId, engine()), processChainTx(batchId, engine())]);
    const [batch] = await followUntilFinal([batchId]);
    if (!batch) throw new Error('no batch');
    expect(batch.status).toBe('confirmed');
    expect(trackedHashes(batch)).toEqual([persisted.attempts[0]?.hash]);
    expect(batch.mined?.hash).toBe(persisted.attempts[0]?.hash);
    expect(Transaction.from(persisted.attempts[0]?.raw).nonce).toBe(batch.nonce);
    sent.push(batch);
    await deliver(batch);
    await deliver(batch);
    for (const w of created) {
      expect(await reread(w)).toMatchObject({ status: 'completed', transactionHash: batch.mined?.hash });
      expect(await tokenBalance(w.address)).toBe(toBaseUnits(w.amount, 6));
      expect(await entryTypes(w)).toEqual(['withdrawal', 'withdrawal_hold']);
    }
    await expectNoNonceGap(sent);
  });

  test('a batch whose request was never made: its withdrawals go singly, and the late request is refused', async () => {
    const created = [await create('30'), await create('31')];
    let lost: Parameters<typeof requestChainTx>[0] | undefined;
    const losing = deps(undefined, {
      store: {
        ...dynamoChainTxStore,
        create: async (tx) => {
          lost = {
            network: tx.network,
            wallet: tx.wallet,
            to: tx.to,
            data: tx.data,
            purpose: tx.purpose,
            reference: tx.reference,
            items: tx.items && [...tx.items],
          };
          throw new Error('lost');
        },
      },
      clock: () => new Date(),
    });
    expect(await runWithdrawalBatch(losing)).toMatchObject({ processing: 0, skipped: 2 });
    const reference = (await reread(created[0] as WithdrawalState)).batch?.reference ?? '';
    expect(lost?.reference).toBe(reference);
    // Within a minute nothing happens; after it, the reference is claimed and each goes singly.
    await runWithdrawalBatch(deps());
    expect(await dynamoChainTxStore.get(requestIdOf(ETH, created[0]?.id ?? ''))).toBeUndefined();
    const later = new Date(Date.now() + 120_000);
    await runWithdrawalBatch(deps(() => later));
    expect(await dynamoChainTxStore.get(requestIdOf(ETH, reference))).toMatchObject({ status: 'cancelled', attempts: [] });
    for (const w of created) expect(await reread(w)).toMatchObject({ status: 'processing', batch: { reference, single: true } });
    // The batcher, late rather than dead, cannot send the batch now.
    await expect(requestChainTx(lost as Parameters<typeof requestChainTx>[0], { store: dynamoChainTxStore, clock: () => new Date() })).rejects.toBeInstanceOf(
      ConflictError,
    );
    const ids = created.map((w) => requestIdOf(ETH, w.id));
    for (const id of ids) await processChainTx(id, engine());
    const done = await followUntilFinal(ids);
    sent.push(...done);
    for (const tx of done) await deliver(tx);
    for (const w of created) {
      expect(await reread(w)).toMatchObject({ status: 'completed' });
      expect(await tokenBalance(w.address)).toBe(toBaseUnits(w.amount, 6));
    }
    await expectNoNonceGap(sent);
  });
});
