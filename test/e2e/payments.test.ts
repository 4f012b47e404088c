import { confirmedResult } from '../support/chain-results.js';
import type { ChainTx } from '../../shared/domain/chain-tx.js';
import { KMSClient } from '@aws-sdk/client-kms';
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import type { JsonRpcSigner } from 'ethers';
import { ERC20_ABI } from '../../shared/chain/evm/abi.js';
import { mintTestToken } from '../../infra/local/dev/deploy.js';
import { jsonRpcChain } from '../../shared/chain/evm/scanner.js';
import type { EvmChainPort } from '../../shared/chain/evm/scanner.js';
import { KmsSigner } from '../../shared/chain/signer/kms-signer.js';
import { parseConfig } from '../../shared/config/config.js';
import type { Config } from '../../shared/config/config.js';
import { add, sub } from '../../shared/domain/money.js';
import { getBalance } from '../../shared/store/ledger.js';
import { getPayment } from '../../shared/store/payments.js';
import { outboxChange, outboxChanges, outboxRecord } from '../support/outbox.js';
import { factoryOf } from '../../shared/runtime/deposit-addresses.js';
import { scannerRuntime } from '../../shared/runtime/payments.js';
import { chainTxRuntime } from '../../shared/runtime/chain-tx.js';
import { expirePayments } from '../../shared/usecases/payments/expire.js';
import { initCursor, scanOnce } from '../../shared/usecases/scanner/scan.js';
import type { ScanDeps } from '../../shared/usecases/scanner/scan.js';
import { directFactorySweep } from '../../shared/chain/evm/sweep-direct.js';
import { evmDepositSource } from '../../shared/chain/evm/deposit-source.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { requestIdOf } from '../../shared/domain/chain-tx.js';
import { dynamoChainTxStore } from '../../shared/store/chain-tx.js';
import { processChainTx } from '../../shared/usecases/chain-tx/process-chain-tx.js';
import { followOnce } from '../../shared/usecases/chain-tx/follow-chain-txs.js';
import { devPay, localChainsOf } from '../../infra/local/dev/dev-pay.js';
import { engineSweep } from '../../shared/usecases/payments/sweep-engine.js';
import { factoryCalls } from '../../shared/chain/evm/factory-calls.js';
import type { handler as ChainResults } from '../../functions/chain-results/handler.js';
import type { handler as ChainScanner } from '../../functions/chain-scanner/handler.js';
import { buildContractsOutOfProcess } from '../integration/chain/contracts-build.js';
import { caller, putFixedRates, tenantWithToken } from '../integration/payments/support.js';
import { custodyApi } from '../support/custody.js';
import { ledgerRuntime } from '../../shared/runtime/ledger.js';
import { creditAdjustment } from '../../shared/usecases/ledger/credit-adjustment.js';
import { runWithdrawalBatch } from '../../shared/usecases/withdrawals/process.js';
import { batcherDeps } from '../support/withdrawals.js';
import { toBaseUnits } from '../../shared/domain/money.js';
import { dynamoCustodyDeposits } from '../../shared/store/custody.js';
import { refundRoutes } from '../../functions/refunds/routes.js';
import { createApi } from '../../shared/http/pipeline.js';
import { refundsRuntime } from '../../shared/runtime/refunds.js';
import { dynamoRefunds } from '../../shared/store/refunds.js';
import { dynamoWithdrawals } from '../../shared/store/withdrawals.js';
import { followingRefunds } from '../../shared/usecases/refunds/payout.js';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Browser } from 'puppeteer-core';
import { CLAIM_MESSAGES } from '../../functions/refund-claims/claim-i18n.js';
import { serveClaim } from '../../functions/refund-claims/claim-serve.js';
import type { ClaimPageDeps } from '../../functions/refund-claims/claim-serve.js';
import { API_FUNCTIONS } from '../../infra/definition.js';
import { startHttpServer } from '../../infra/local/http-server.js';
import type { LocalHttpServer } from '../../infra/local/http-server.js';
import { clientRateLimiter } from '../../shared/http/client-rate-limit.js';
import { formatAmount } from '../../shared/http/public-pages.js';
import { launchBrowser } from '../support/browser.js';

const getCustodyDeposit = dynamoCustodyDeposits.get;

/**
 * End to end on anvil: a payment from creation to completed (the merchant's balance credited exactly, the
 * treasury holding the swept tokens), and the hard cases: two deposits in one block, underpayment then
 * top-up, overpayment, wrong token, payment after expiry, and a reorganised deposit (snapshot/revert); an
 * overpayment's excess refunded through its claim page in Chromium and paid on chain.
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
/** The refund's claim page over HTTP, and the browser its payer opens it in. */
let claimServer: LocalHttpServer | undefined;
let browser: Browser | undefined;

const units = (n: number) => BigInt(n) * 1_000_000n;
const mine = (n = 1) => provider.send('anvil_mine', [`0x${n.toString(16)}`]);
const scan = () => scanOnce('ETH', scanDeps);
const balance = async () => (await getBalance(merchant.tenantId, 'main', 'USDTERC20')).amount;

/**
 * The payer's transfer; by default mined before it returns (anvil's automine answers with the hash and mines just
 * after, so a scan right away could read the block before). `mined: false` where the test mines blocks itself.
 */
async function pay(token: string, to: string, amount: bigint, { mined = true }: { mined?: boolean } = {}): Promise<string> {
  const tx = await (new Contract(token, ERC20_ABI, payer).getFunction('transfer')(to, amount) as Promise<{ hash: string; wait(): Promise<unknown> }>);
  if (mined) await tx.wait();
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
  scanDeps = { ...scannerRuntime(cfg), source: evmDepositSource(chain), sweep: directFactorySweep(factories, hot) };
  await initCursor('ETH', await chain.blockNumber(), scanDeps);
  merchant = await tenantWithToken('Chain merchant');
  const { handler } = await import('../../functions/payments/handler.js');
  // The workers wire themselves from the stack's environment when they load.
  ({ handler: chainResults } = await import('../../functions/chain-results/handler.js'));
  ({ handler: chainScanner } = await import('../../functions/chain-scanner/handler.js'));
  call = caller(handler, () => merchant.bearer);
});

afterAll(async () => {
  await browser?.close();
  await claimServer?.close();
  chain?.close();
  provider?.destroy();
  kms?.destroy();
  await stack?.stop();
});

/** The events of the payment's change whose outbox item holds a `status` update (what the table's stream hands the event router). */
async function changeAnnouncing(paymentId: string, status: string) {
  const changes = await outboxChanges(`payment:${paymentId}:`);
  return changes.find((events) => events.some((e) => e.type === 'payment_status_update' && e.payload.status === status)) ?? [];
}

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
    // Announced by the write that saved the payment's second version (its deposit), in one outbox item.
    const detected = await outboxChange(`payment:${id}:deposit:${depositId}:2`);
    expect(detected.map((e) => [e.eventId, e.type])).toEqual(expect.arrayContaining([[`payment:${id}:deposit:${depositId}:2`, 'deposit_received']]));
    expect(detected.find((e) => e.type === 'deposit_received')?.payload).toMatchObject({ deposit_id: depositId, amount: '25', transaction_hash: hash });
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
    const completion = await changeAnnouncing(id, 'completed');
    expect(completion.map((e) => [e.eventId, e.type])).toEqual(
      expect.arrayContaining([
        [`payment:${id}:merged:${depositId}`, 'deposit_merged'],
        [expect.stringMatching(/^payment:.+:status:\d+:completed$/), 'payment_status_update'],
      ]),
    );
    // Scanning again changes nothing: each deposit is recorded once and the entry is posted once.
    await scan();
    expect(await balance()).toBe(add(before, '24.75'));
  });

  it('records two deposits in one block and completes on their sum', async () => {
    const before = await balance();
    const { id, address } = await newPayment();
    await provider.send('evm_setAutomine', [false]);
    await pay(usdt, address, units(10), { mined: false });
    await pay(usdt, address, units(15), { mined: false });
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

  it("an overpayment's excess is refunded through its claim link: the payer enters their wallet on the claim page in Chromium, the batcher and the chain-tx engine pay it", async () => {
    // Before the tests that send through the chain-tx engine: this payment's sweep signs with the hot wallet directly
    // (scanDeps), so the engine's first nonce must be read after it.
    // The deployment with the hot wallet's key: ETH withdrawals, and so refunds, are paid out.
    const paying = parseConfig({
      ...process.env,
      EVM_RPC_URLS: JSON.stringify({ ETH: stack.stackJson.rpcUrls.ETH }),
      TOKEN_CONTRACTS: JSON.stringify({ USDTERC20: usdt }),
      HOT_WALLET_KEY_ID: stack.env.SIGNING_KEY_ID ?? '',
    });
    // Its claim page (the refund-claims Lambda's serveClaim) behind the local API Gateway stand-in, over HTTP.
    const claimFunction = API_FUNCTIONS.find((f) => f.name === 'refund-claims');
    if (!claimFunction) throw new Error('no refund-claims function in the definition');
    const claims: ClaimPageDeps = { refunds: refundsRuntime(paying), limiter: clientRateLimiter(paying.CHECKOUT_REQUESTS_PER_MINUTE) };
    claimServer = await startHttpServer({
      port: 0,
      functions: [
        { name: claimFunction.name, routes: claimFunction.routes, handler: (event) => serveClaim(event as APIGatewayProxyEventV2, claims, new Date()) },
      ],
    });
    const hot = await new KmsSigner(kms, stack.env.SIGNING_KEY_ID ?? '', provider).getAddress();
    const engineDeps = chainTxRuntime(cfg).deps;
    // The payout is sent from the hot wallet: fund it with the tokens.
    await mintTestToken(owner, usdt, hot, units(100));
    const before = await balance();
    const { id, address } = await newPayment();
    await pay(usdt, address, units(60));
    await scan();
    await mine();
    await scan();
    expect(await getPayment(merchant.tenantId, id)).toMatchObject({ status: 'completed', flags: ['overpaid'] });
    // The refunds API gives claim links on the claim page's server.
    const refunds = caller(createApi(refundRoutes, refundsRuntime({ ...paying, PUBLIC_BASE_URL: claimServer.url })), () => merchant.bearer);
    // No address: the merchant hands the payer the claim link.
    const made = await refunds('POST', `/payments/${id}/refunds/`, { body: { reason: 'overpaid' } });
    expect([made.status, made.body.status, made.body.amount]).toEqual([201, 'awaiting_address', '35']);
    const claimUrl = made.body.claim_url as string;
    expect(claimUrl.startsWith(`${claimServer.url}/refund-claims/`)).toBe(true);

    // The payer opens it in a browser, types their wallet's address twice and sends the page's form (no script).
    browser = await launchBrowser();
    const tab = await browser.newPage();
    expect((await tab.goto(claimUrl, { waitUntil: 'load' }))?.status()).toBe(200);
    expect(await tab.$eval('main', (m) => m.getAttribute('data-state'))).toBe('open');
    expect(await tab.$eval('#amount', (d) => d.textContent)).toBe('35 USDT');
    await tab.type('#address', payer.address);
    await tab.type('#address_confirmation', payer.address);
    await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.click('#submit')]);
    expect(tab.url()).toBe(claimUrl);
    expect(await tab.$eval('main', (m) => m.getAttribute('data-state'))).toBe('set');
    expect(await tab.$eval('#status', (s) => s.textContent)).toBe(CLAIM_MESSAGES.en.pending);
    expect(await tab.$('form')).toBeNull();
    expect((await refunds('GET', `/refunds/${made.body.id as string}/`)).body).toMatchObject({ status: 'pending', address: payer.address });

    const token = new Contract(usdt, ERC20_ABI, provider).getFunction('balanceOf');
    const payerBefore = (await token(payer.address)) as bigint;
    const report = await runWithdrawalBatch({
      ...batcherDeps({
        wallet: async () => ({ keyId: stack.env.SIGNING_KEY_ID ?? '', address: hot }),
        chainTx: engineDeps,
        tokenContract: (code) => (code === 'USDTERC20' ? usdt : null),
      }),
      // As the batcher's runtime wires it: the refund follows its withdrawal.
      withdrawals: followingRefunds(dynamoWithdrawals, dynamoRefunds),
    });
    expect(report.processing).toBe(1);
    expect((await refunds('GET', `/refunds/${made.body.id as string}/`)).body.status).toBe('processing');
    const refund = await dynamoRefunds.get(merchant.tenantId, made.body.id as string);
    const requestId = requestIdOf('ETH', refund?.withdrawalId ?? '');
    await processChainTx(requestId, engineDeps);
    await mine();
    await followOnce('ETH', engineDeps);
    const tx = await dynamoChainTxStore.get(requestId);
    expect(tx?.status).toBe('confirmed');
    expect((await chainResults(confirmedResult(tx as ChainTx, 'm-refund'))).batchItemFailures).toEqual([]);
    const done = (await refunds('GET', `/refunds/${made.body.id as string}/`)).body;
    expect(done).toMatchObject({ status: 'completed', amount: '35', transaction_hash: tx?.mined?.hash });
    expect(done.amount_sent).toBe(sub('35', String(done.network_fee)));
    // The payer's own wallet received amount_sent on chain; the merchant paid exactly the refund.
    expect(((await token(payer.address)) as bigint) - payerBefore).toBe(toBaseUnits(String(done.amount_sent), 6));
    expect(await getBalance(merchant.tenantId, 'main', 'USDTERC20')).toMatchObject({ amount: sub(add(before, '59.75'), '35') });

    // The claim page, reloaded, shows the refund sent: to the address, in the transaction, for amount_sent.
    expect((await tab.reload({ waitUntil: 'load' }))?.status()).toBe(200);
    expect(await tab.$eval('main', (m) => [m.getAttribute('data-state'), m.getAttribute('data-status')])).toEqual(['set', 'completed']);
    expect(await tab.$eval('#status', (s) => s.textContent)).toBe(CLAIM_MESSAGES.en.completed);
    expect(await tab.$eval('#address', (a) => a.textContent)).toBe(payer.address);
    expect(await tab.$eval('#transaction', (h) => h.textContent)).toBe(tx?.mined?.hash);
    expect(await tab.$eval('#amount-sent', (d) => d.textContent)).toBe(`${formatAmount(String(done.amount_sent), 'en')} USDT`);
    expect(await tab.$('form')).toBeNull();
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
      sweep: engineSweep({
        factoryOf: (network) => factoryOf(cfg, network),
        wallet: async () => ({ keyId: stack.env.SIGNING_KEY_ID ?? '', address: hot }),
        engine: engineDeps,
        calls: factoryCalls,
      }),
    };
    await scanOnce('ETH', viaEngine);
    await mine();
    await scanOnce('ETH', viaEngine);
    expect(await status(id)).toBe('sending');
    const p = await getPayment(merchant.tenantId, id);
    const requestId = requestIdOf('ETH', p?.sweepReference ?? '');
    await processChainTx(requestId, engineDeps);
    await mine();
    await followOnce('ETH', engineDeps);
    const tx = await dynamoChainTxStore.get(requestId);
    expect(tx?.status).toBe('confirmed');
    // The event router forwards the engine's chain_tx.confirmed event to the chain-results queue.
    const out = await chainResults(confirmedResult(tx as ChainTx, 'm1'));
    expect(out.batchItemFailures).toEqual([]);
    expect(await status(id)).toBe('completed');
    expect(await balance()).toBe(add(before, '24.75'));
  });

  // Here, while the chain-tx engine's nonce for the hot wallet is the chain's: the direct sweeps of the other tests
  // sign with the same key outside the engine (on a deployment only the engine signs).
  it("a custody account's deposit is swept through the chain-tx engine, and the chain-results worker marks it swept", async () => {
    const custody = caller(custodyApi(cfg), () => merchant.bearer);
    const accountId = (await custody('POST', '/custody/accounts', { body: { name: 'Engine treasury' } })).body.account_id as string;
    const address = (await custody('POST', `/custody/accounts/${accountId}/addresses/ETH`)).body.address as string;
    const custodyBalance = async () => (await getBalance(merchant.tenantId, `custody:${accountId}`, 'USDTERC20')).amount;
    const hot = await new KmsSigner(kms, stack.env.SIGNING_KEY_ID ?? '', provider).getAddress();
    const engineDeps = chainTxRuntime(cfg).deps;
    const viaEngine: ScanDeps = {
      ...scanDeps,
      sweep: engineSweep({
        factoryOf: (network) => factoryOf(cfg, network),
        wallet: async () => ({ keyId: stack.env.SIGNING_KEY_ID ?? '', address: hot }),
        engine: engineDeps,
        calls: factoryCalls,
      }),
    };
    const hash = await pay(usdt, address, units(12));
    await scanOnce('ETH', viaEngine);
    await mine();
    await scanOnce('ETH', viaEngine);
    const depositId = `ETH:${hash}:0`;
    expect((await getCustodyDeposit(merchant.tenantId, depositId))?.status).toBe('sweeping');
    expect(await custodyBalance()).toBe('12');
    const requestId = requestIdOf('ETH', `custody:${merchant.tenantId}:${depositId}`);
    await processChainTx(requestId, engineDeps);
    await mine();
    await followOnce('ETH', engineDeps);
    const tx = await dynamoChainTxStore.get(requestId);
    expect(tx?.status).toBe('confirmed');
    expect((await chainResults(confirmedResult(tx as ChainTx, 'm-custody'))).batchItemFailures).toEqual([]);
    const swept = await getCustodyDeposit(merchant.tenantId, depositId);
    expect([swept?.status, swept?.sweepTxHash]).toEqual(['swept', tx?.mined?.hash]);
    expect(await custodyBalance()).toBe('12');
    expect(await new Contract(usdt, ERC20_ABI, provider).getFunction('balanceOf')(address)).toBe(0n);
  });

  it('a custody withdrawal is sent by the batcher through the chain-tx engine and completed on chain', async () => {
    // The deployment with the hot wallet's key: ETH withdrawals are served.
    const withdrawing = parseConfig({
      ...process.env,
      EVM_RPC_URLS: JSON.stringify({ ETH: stack.stackJson.rpcUrls.ETH }),
      TOKEN_CONTRACTS: JSON.stringify({ USDTERC20: usdt }),
      HOT_WALLET_KEY_ID: stack.env.SIGNING_KEY_ID ?? '',
    });
    const custody = caller(custodyApi(withdrawing), () => merchant.bearer);
    const accountId = (await custody('POST', '/custody/accounts', { body: { name: 'Paying treasury' } })).body.account_id as string;
    await creditAdjustment(
      { tenant_id: merchant.tenantId, account: `custody:${accountId}`, currency: 'USDTERC20', amount: '25', reason: 'test funding' },
      ledgerRuntime(),
    );
    const recipient = Wallet.createRandom().address;
    const made = await custody('POST', '/custody/withdraw', { body: { account_id: accountId, blockchain: 'ETH', amount: 25, destination_address: recipient } });
    expect([made.status, made.body.status]).toEqual([200, 'pending']);
    const hot = await new KmsSigner(kms, stack.env.SIGNING_KEY_ID ?? '', provider).getAddress();
    const engineDeps = chainTxRuntime(cfg).deps;
    const report = await runWithdrawalBatch(
      batcherDeps({
        wallet: async () => ({ keyId: stack.env.SIGNING_KEY_ID ?? '', address: hot }),
        chainTx: engineDeps,
        tokenContract: (code) => (code === 'USDTERC20' ? usdt : null),
      }),
    );
    expect(report.processing).toBe(1);
    const requestId = requestIdOf('ETH', made.body.withdrawal_id as string);
    await processChainTx(requestId, engineDeps);
    await mine();
    await followOnce('ETH', engineDeps);
    const tx = await dynamoChainTxStore.get(requestId);
    expect(tx?.status).toBe('confirmed');
    expect((await chainResults(confirmedResult(tx as ChainTx, 'm-custody-w'))).batchItemFailures).toEqual([]);
    // The destination received net_amount; the account paid the whole 25.
    const received = (await new Contract(usdt, ERC20_ABI, provider).getFunction('balanceOf')(recipient)) as bigint;
    expect(received).toBe(toBaseUnits(String(made.body.net_amount), 6));
    expect(await getBalance(merchant.tenantId, `custody:${accountId}`, 'USDTERC20')).toEqual({ amount: '0', pending: '0', locked: '0' });
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

describe('a custody account on anvil', () => {
  let custody: ReturnType<typeof caller>;
  let history: ReturnType<typeof caller>;
  const custodyBalance = async (accountId: string) => (await getBalance(merchant.tenantId, `custody:${accountId}`, 'USDTERC20')).amount;

  beforeAll(async () => {
    custody = caller(custodyApi(cfg), () => merchant.bearer);
    history = caller((await import('../../functions/transactions/handler.js')).handler, () => merchant.bearer);
  });

  const newAddress = async (): Promise<{ accountId: string; address: string }> => {
    const account = await custody('POST', '/custody/accounts', { body: { name: 'Chain treasury' } });
    const address = await custody('POST', `/custody/accounts/${account.body.account_id}/addresses/ETH`);
    expect(address.status).toBe(200);
    return { accountId: account.body.account_id as string, address: address.body.address as string };
  };

  it('credits a USDT deposit once, after its confirmations, and sweeps it into the treasury', async () => {
    const { accountId, address } = await newAddress();
    const treasuryBefore = (await new Contract(usdt, ERC20_ABI, provider).getFunction('balanceOf')(treasury)) as bigint;
    const hash = await pay(usdt, address, units(40));
    // A token custody does not hold is not credited.
    await pay(usdc, address, units(5));
    expect((await scan()).recorded).toBe(1);
    const depositId = `ETH:${hash}:0`;
    expect((await getCustodyDeposit(merchant.tenantId, depositId))?.status).toBe('confirming');
    expect(await custodyBalance(accountId)).toBe('0');

    await mine();
    await scan();
    expect(await custodyBalance(accountId)).toBe('40');
    const deposit = await getCustodyDeposit(merchant.tenantId, depositId);
    // Its block, the USDC transfer's and the one mined: 3 (2 were needed).
    expect([deposit?.status, deposit?.confirmations, deposit?.sweepTxHash]).toEqual(['swept', 3, expect.stringMatching(/^0x/)]);
    const treasuryAfter = (await new Contract(usdt, ERC20_ABI, provider).getFunction('balanceOf')(treasury)) as bigint;
    expect(treasuryAfter - treasuryBefore).toBe(units(40));
    const balances = await custody('GET', `/custody/accounts/${accountId}/balances`);
    expect(balances.body.balances[0]).toMatchObject({ blockchain: 'ETH', balance: 40, available: 40, locked: 0 });
    const listed = await custody('GET', `/custody/accounts/${accountId}/addresses`);
    expect(listed.body[0].last_deposit_at).toEqual(expect.any(String));

    // Announced to the tenant (envelope A) when seen and when credited; in the history as a custody deposit.
    for (const status of ['confirming', 'credited']) {
      const event = await outboxRecord(`custody_deposit:${depositId}:status:${status}`);
      expect([status, event?.type]).toEqual([status, 'custody_deposit_update']);
    }
    const rows = (await history('GET', '/transactions/transactions/', { query: { type: 'custody' } })).body.transactions as Record<string, unknown>[];
    expect(rows.find((r) => r.id === depositId)).toMatchObject({
      subtype: 'deposit',
      status: 'swept',
      amount: '40.000000',
      transaction_hash: hash,
      custom_id: accountId,
    });

    // Later passes credit nothing twice.
    await mine(2);
    await scan();
    expect(await custodyBalance(accountId)).toBe('40');
  });

  it('drops a deposit whose block is reorganised away, crediting nothing', async () => {
    const { accountId, address } = await newAddress();
    await mine();
    await scan();
    const snapshot = (await provider.send('evm_snapshot', [])) as string;
    const hash = await pay(usdt, address, units(7));
    await scan();
    expect((await getCustodyDeposit(merchant.tenantId, `ETH:${hash}:0`))?.status).toBe('confirming');
    await provider.send('evm_revert', [snapshot]);
    await mine(3);
    await scan();
    expect((await getCustodyDeposit(merchant.tenantId, `ETH:${hash}:0`))?.status).toBe('dropped');
    expect(await custodyBalance(accountId)).toBe('0');
  });
});
