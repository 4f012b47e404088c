import { KMSClient } from '@aws-sdk/client-kms';
import { Contract, JsonRpcProvider } from 'ethers';
import type { JsonRpcSigner } from 'ethers';
import { ERC20_ABI } from '../../shared/chain/evm/abi.js';
import { mintTestToken } from '../../infra/local/dev/deploy.js';
import { jsonRpcChain } from '../../shared/chain/evm/scanner.js';
import type { EvmChainPort } from '../../shared/chain/evm/scanner.js';
import { KmsSigner } from '../../shared/chain/signer/kms-signer.js';
import { parseConfig } from '../../shared/config/config.js';
import type { Config } from '../../shared/config/config.js';
import { add } from '../../shared/domain/money.js';
import { getBalance } from '../../shared/store/ledger.js';
import { getPayment } from '../../shared/store/payments.js';
import { factoryOf, scannerRuntime } from '../../shared/runtime/payments.js';
import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { expirePayments } from '../../shared/usecases/payments/expire.js';
import { initCursor, scanOnce } from '../../shared/usecases/payments/scan.js';
import type { ScanDeps } from '../../shared/usecases/payments/scan.js';
import { directFactorySweep } from '../../shared/usecases/payments/sweep-direct.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/store/client.js';
import { keys } from '../../shared/store/keys.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { requestIdOf } from '../../shared/chain/engine/state.js';
import { dynamoChainTxStore } from '../../shared/store/chain-tx.js';
import { processChainTx } from '../../shared/usecases/chain-tx/process-chain-tx.js';
import { followOnce } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { devPay, localChainsOf } from '../../infra/local/dev/dev-pay.js';
import { engineSweep } from '../../shared/usecases/payments/sweep-engine.js';
import { sweepReference } from '../../shared/usecases/payments/settle.js';
import type { handler as ChainResults } from '../../functions/chain-results/handler.js';
import type { SQSEvent } from 'aws-lambda';
import type { handler as ChainScanner } from '../../functions/chain-scanner/handler.js';
import { buildContractsOutOfProcess } from '../integration/chain/contracts-build.js';
import { caller, putFixedRates, tenantWithToken } from '../integration/payments/support.js';

/**
 * End to end on anvil: a payment from creation to completed (the merchant's balance credited exactly, the
 * treasury holding the swept tokens), and the hard cases: two deposits in one block, underpayment then
 * top-up, overpayment, wrong token, payment after expiry, and a reorganised deposit (snapshot/revert).
 */
let stack: TestStack;
let provider: JsonRpcProvider;
let chain: EvmChainPort;
let kms: KMSClient;
let owner: JsonRpcSigner;
let payer: JsonRpcSigner;
let usdt: string;
let usdc: string;
let treasury: string;
let scanDeps: ScanDeps;
let cfg: Config;
let chainResults: typeof ChainResults;
let chainScanner: typeof ChainScanner;
let merchant: { tenantId: string; bearer: string };
let call: ReturnType<typeof caller>;

const units = (n: number) => BigInt(n) * 1_000_000n;
const mine = (n = 1) => provider.send('anvil_mine', [`0x${n.toString(16)}`]);
const scan = () => scanOnce('ETH', scanDeps);
const balance = async () => (await getBalance(merchant.tenantId, 'main', 'USDTERC20')).amount;

async function pay(token: string, to: string, amount: bigint): Promise<string> {
  const tx = await (new Contract(token, ERC20_ABI, payer).getFunction('transfer')(to, amount) as Promise<{ hash: string; wait(): Promise<unknown> }>);
  return tx.hash;
}

async function newPayment(body: Record<string, unknown> = {}): Promise<{ id: string; address: string }> {
  const res = await call('POST', '/payments/', { body: { amount: '25', currency: 'USDTERC20', ...body } });
  expect(res.status).toBe(201);
  return { id: res.body.transaction_id as string, address: res.body.address as string };
}

const status = async (id: string) => (await getPayment(merchant.tenantId, id))?.status;

beforeAll(async () => {
  await buildContractsOutOfProcess();
  // Automine: the tests mine (and revert) blocks themselves.
  stack = await startTestStack({ anvil: true, contracts: true, pollers: false, http: false }, { blockTimeSeconds: null });
  const contracts = stack.stackJson.contracts as { tokens: Record<string, string>; treasury: string };
  usdt = contracts.tokens.USDT as string;
  usdc = contracts.tokens.USDC as string;
  treasury = contracts.treasury;
  cfg = parseConfig({
    ...process.env,
    EVM_RPC_URLS: JSON.stringify({ ETH: stack.stackJson.rpcUrls.ETH }),
    CHAIN_TX_CONFIRMATIONS: '1',
    TOKEN_CONTRACTS: JSON.stringify({ USDTERC20: usdt, USDCERC20: usdc, DAIERC20: contracts.tokens.DAI, WETH: contracts.tokens.WETH }),
  });
  await putFixedRates();
  const rpc = stack.stackJson.rpcUrls.ETH as string;
  provider = new JsonRpcProvider(rpc, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 20 });
  owner = await provider.getSigner(0);
  payer = await provider.getSigner(2);
  await mintTestToken(owner, usdt, payer.address, units(10_000));
  await mintTestToken(owner, usdc, payer.address, units(1_000));
  chain = jsonRpcChain(rpc);
  kms = new KMSClient({
    endpoint: stack.env.AWS_ENDPOINT_URL_KMS,
    region: 'us-east-1',
    credentials: { accessKeyId: stack.env.AWS_ACCESS_KEY_ID ?? '', secretAccessKey: stack.env.AWS_SECRET_ACCESS_KEY ?? '' },
  });
  const hot = new KmsSigner(kms, stack.env.SIGNING_KEY_ID ?? '', provider);
  const factories = (network: string) => factoryOf(cfg, network);
  scanDeps = { ...scannerRuntime(cfg), chain, sweep: directFactorySweep(factories, hot) };
  await initCursor('ETH', await chain.blockNumber(), scanDeps);
  merchant = await tenantWithToken('Chain merchant');
  const { handler } = await import('../../functions/payments/handler.js');
  // The workers wire themselves from the stack's environment when they load.
  ({ handler: chainResults } = await import('../../functions/chain-results/handler.js'));
  ({ handler: chainScanner } = await import('../../functions/chain-scanner/handler.js'));
  call = caller(handler, () => merchant.bearer);
});

afterAll(async () => {
  chain?.close();
  provider?.destroy();
  kms?.destroy();
  await stack?.stop();
});

describe('a payment on anvil', () => {
  it('goes from creation to completed, crediting the merchant exactly, through the outbox', async () => {
    const before = await balance();
    const treasuryBefore = (await new Contract(usdt, ERC20_ABI, provider).getFunction('balanceOf')(treasury)) as bigint;
    const { id, address } = await newPayment();
    const hash = await pay(usdt, address, units(25));
    const first = await scan();
    expect(first.recorded).toBe(1);
    expect(await status(id)).toBe('confirming');
    const depositId = `ETH:${hash}:0`;
    // Announced by the change that saved the payment's second version (its deposit).
    const event = await db().send(new GetCommand({ TableName: tableName(), Key: keys.outbox(`payment:${id}:deposit:${depositId}:2`) }));
    expect(event.Item?.type).toBe('deposit_received');
    await mine();
    await scan();
    const done = await call('GET', `/payments/${id}/`);
    expect(done.body).toMatchObject({
      status: 'completed',
      transaction_hash: hash,
      confirmations: 2,
      merchant_received_usd: '24.75',
      merchant_received: '24.75',
    });
    expect(done.body.payment_history).toEqual([expect.objectContaining({ deposit_id: depositId, amount: '25', transaction_hash: hash })]);
    expect(await balance()).toBe(add(before, '24.75'));
    const treasuryAfter = (await new Contract(usdt, ERC20_ABI, provider).getFunction('balanceOf')(treasury)) as bigint;
    expect(treasuryAfter - treasuryBefore).toBe(units(25));
    const merged = await db().send(new GetCommand({ TableName: tableName(), Key: keys.outbox(`payment:${id}:merged:${depositId}`) }));
    expect(merged.Item?.type).toBe('deposit_merged');
    // Scanning again changes nothing: each deposit is recorded once and the entry is posted once.
    await scan();
    expect(await balance()).toBe(add(before, '24.75'));
  });

  it('records two deposits in one block and completes on their sum', async () => {
    const before = await balance();
    const { id, address } = await newPayment();
    await provider.send('evm_setAutomine', [false]);
    await pay(usdt, address, units(10));
    await pay(usdt, address, units(15));
    await mine();
    await provider.send('evm_setAutomine', [true]);
    expect((await scan()).recorded).toBe(2);
    await mine();
    await scan();
    const p = await getPayment(merchant.tenantId, id);
    expect(p?.status).toBe('completed');
    expect(p?.deposits).toHaveLength(2);
    expect(await balance()).toBe(add(before, '24.75'));
  });

  it('underpayment: partially_paid, a top-up completes it', async () => {
    const before = await balance();
    const { id, address } = await newPayment();
    await pay(usdt, address, units(20));
    await scan();
    await mine();
    await scan();
    const partial = await getPayment(merchant.tenantId, id);
    expect([partial?.status, partial?.flags]).toEqual(['partially_paid', ['underpaid']]);
    expect(await balance()).toBe(before);
    await pay(usdt, address, units(5));
    await scan();
    expect(await status(id)).toBe('confirming');
    await mine();
    await scan();
    expect(await status(id)).toBe('completed');
    expect(await balance()).toBe(add(before, '24.75'));
  });

  it('overpayment: completed, the excess credited and flagged', async () => {
    const before = await balance();
    const { id, address } = await newPayment();
    await pay(usdt, address, units(30));
    await scan();
    await mine();
    await scan();
    const p = await getPayment(merchant.tenantId, id);
    expect([p?.status, p?.flags, p?.merchantReceived]).toEqual(['completed', ['overpaid'], '29.75']);
    expect(await balance()).toBe(add(before, '29.75'));
  });

  it('wrong token: recorded, flagged, not credited', async () => {
    const before = await balance();
    const { id, address } = await newPayment();
    await pay(usdc, address, units(25));
    await scan();
    await mine();
    await scan();
    const p = await getPayment(merchant.tenantId, id);
    expect([p?.status, p?.flags, p?.deposits[0]?.status]).toEqual(['waiting', ['wrong_token'], 'wrong_currency']);
    expect(await balance()).toBe(before);
  });

  it('paid after expiry within the watch window: expired, then recorded, credited, flagged', async () => {
    const before = await balance();
    const { id, address } = await newPayment({ expiry_minutes: 1 });
    const later = new Date(Date.now() + 2 * 60_000);
    expect((await expirePayments({ ...scanDeps, clock: { now: () => later } })).expired).toBeGreaterThanOrEqual(1);
    expect(await status(id)).toBe('expired');
    await pay(usdt, address, units(25));
    await scan();
    await mine();
    await scan();
    const p = await getPayment(merchant.tenantId, id);
    expect([p?.status, p?.flags]).toEqual(['completed', ['paid_late']]);
    expect(await balance()).toBe(add(before, '24.75'));
  });

  it('a deposit whose block is reorganised away goes back to waiting, nothing credited', async () => {
    const before = await balance();
    await mine();
    await scan();
    const snapshot = (await provider.send('evm_snapshot', [])) as string;
    const { id, address } = await newPayment();
    await pay(usdt, address, units(25));
    await scan();
    expect(await status(id)).toBe('confirming');
    await provider.send('evm_revert', [snapshot]);
    await mine(3);
    const report = await scan();
    expect(report.rewoundTo).not.toBeNull();
    const p = await getPayment(merchant.tenantId, id);
    expect([p?.status, p?.deposits]).toEqual(['waiting', []]);
    expect(await balance()).toBe(before);
  });

  it('`dev pay` pays what is due from a funded test account; the sweep goes through the chain-tx engine', async () => {
    const before = await balance();
    const { id } = await newPayment();
    const paid = await devPay(id, undefined, localChainsOf(stack.stackJson));
    expect([paid.amount, paid.currency]).toEqual(['25', 'USDTERC20']);
    const hot = await new KmsSigner(kms, stack.env.SIGNING_KEY_ID ?? '', provider).getAddress();
    const engineDeps = chainTxRuntime(cfg).deps;
    const viaEngine: ScanDeps = {
      ...scanDeps,
      sweep: engineSweep(
        (network) => factoryOf(cfg, network),
        async () => ({ keyId: stack.env.SIGNING_KEY_ID ?? '', address: hot }),
        engineDeps,
      ),
    };
    await scanOnce('ETH', viaEngine);
    await mine();
    await scanOnce('ETH', viaEngine);
    expect(await status(id)).toBe('sending');
    const p = await getPayment(merchant.tenantId, id);
    const requestId = requestIdOf('ETH', sweepReference(p as NonNullable<typeof p>));
    await processChainTx(requestId, engineDeps);
    await mine();
    await followOnce('ETH', engineDeps);
    const tx = await dynamoChainTxStore.get(requestId);
    expect(tx?.status).toBe('confirmed');
    // The event router would forward the engine's chain_tx.confirmed event to the chain-results queue.
    const body = JSON.stringify({
      event_id: `chain_tx:${requestId}:chain_tx.confirmed`,
      tenant_id: tx?.tenantId,
      type: 'chain_tx.confirmed',
      occurred_at: tx?.updatedAt,
      payload: { request_id: requestId, network: tx?.network, reference: tx?.reference, purpose: 'sweep', tx_hash: tx?.mined?.hash ?? null },
    });
    const out = await chainResults({ Records: [{ messageId: 'm1', body }] } as unknown as SQSEvent);
    expect(out.batchItemFailures).toEqual([]);
    expect(await status(id)).toBe('completed');
    expect(await balance()).toBe(add(before, '24.75'));
  });

  it('a payment in the native coin is found by the chain-scanner worker (top-level transfer, real tx hash) and swept', async () => {
    const before = (await getBalance(merchant.tenantId, 'main', 'ETH')).amount;
    const res = await call('POST', '/payments/', { body: { amount: '30', currency: 'ETH' } });
    const id = res.body.transaction_id as string;
    expect(res.body.amount_crypto).toBe('0.01000000');
    const paid = await devPay(id, undefined, localChainsOf(stack.stackJson));
    const context = { getRemainingTimeInMillis: () => 16_000 };
    expect((await chainScanner(undefined, context)).recorded).toBe(1);
    expect((await getPayment(merchant.tenantId, id))?.transactionHash).toBe(paid.transaction_hash);
    await mine();
    await chainScanner(undefined, context);
    expect(await status(id)).toBe('completed');
    expect((await getBalance(merchant.tenantId, 'main', 'ETH')).amount).toBe(add(before, '0.0099'));
    expect(await provider.getBalance(res.body.address as string)).toBe(0n);
  });

  it('a native coin sent to a payment in a token is not detected or credited (recoverable with flushNative)', async () => {
    const before = await balance();
    const { id, address } = await newPayment();
    await (await payer.sendTransaction({ to: address, value: 10n ** 16n })).wait();
    await scan();
    await mine();
    await scan();
    const p = await getPayment(merchant.tenantId, id);
    expect([p?.status, p?.deposits]).toEqual(['waiting', []]);
    expect(await balance()).toBe(before);
    expect(await provider.getBalance(address)).toBe(10n ** 16n);
  });
});
