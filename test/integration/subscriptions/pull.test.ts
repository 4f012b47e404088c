import { Contract, Interface, JsonRpcProvider } from 'ethers';
import type { JsonRpcSigner } from 'ethers';
import { startAnvil } from '../../../infra/local/anvil.js';
import { moveLocalChains } from '../../../infra/local/dev/dev-clock.js';
import type { AnvilInstance } from '../../../infra/local/anvil.js';
import { deploySubscriptionCollector, deployTestToken, mintTestToken, TEST_TOKENS } from '../../../infra/local/dev/deploy.js';
import { ERC20_ABI } from '../../../shared/chain/evm/abi.js';
import { SUBSCRIPTION_COLLECTOR_ABI, decodeChargeBatchData } from '../../../shared/chain/evm/collector.js';
import { resetConfig } from '../../../shared/config/config.js';
import type { Config } from '../../../shared/config/config.js';
import type { ChainTx } from '../../../shared/domain/chain-tx.js';
import { CHAIN_RESULT_EVENTS, parseRoutedEvent } from '../../../shared/domain/events.js';
import { platformFee } from '../../../shared/domain/fees.js';
import { add, mul, sub } from '../../../shared/domain/money.js';
import type { SubscriptionState } from '../../../shared/domain/subscriptions.js';
import { chargeReference } from '../../../shared/domain/subscriptions.js';
import { pullSubscriptionsRuntime } from '../../../shared/runtime/collector.js';
import { dynamoChainTxStore } from '../../../shared/store/chain-tx.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { dynamoTenants } from '../../../shared/store/tenants.js';
import { dynamoTenantClocks } from '../../../shared/store/subscriptions.js';
import { onChainResult } from '../../../shared/usecases/chain-tx/on-chain-result.js';
import type { SubscriptionsDeps } from '../../../shared/usecases/subscriptions/ports.js';
import { advanceDue, advanceSubscription } from '../../../shared/usecases/subscriptions/advance.js';
import { subscriptionRecord } from '../../../shared/usecases/subscriptions/present.js';
import { onChargeBatchResult, onChargeResult } from '../../../shared/usecases/subscriptions/pull.js';
import { cancelSubscription, createSubscription } from '../../../shared/usecases/subscriptions/subscriptions.js';
import { createPlan } from '../../../shared/usecases/subscriptions/plans.js';
import { systemClock } from '../../../shared/domain/clock.js';
import { outboxChanges } from '../../support/outbox.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { buildContractsOutOfProcess } from '../chain/contracts-build.js';
import { caller, EVERY_TOKEN_CONTRACT, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import { routedApi } from '../refunds/support.js';

/**
 * Pull subscriptions end to end on DynamoDB Local and anvil: the collector contract and a test USDT deployed, a wallet
 * the test owns approving and authorising the setup's calls, the advancer activating on what the chain shows, each
 * period's charge requested with the period's advance and sent from the hot wallet (the test plays the chain-tx
 * engine: it sends the request's call data from the hot account and hands its `chain_tx.confirmed` to the
 * chain-results settlement), the tenant's clock and anvil's moved together.
 */
const AMOUNT = '12.5';
const UNITS = 12_500_000n;
const collectorIface = new Interface(SUBSCRIPTION_COLLECTOR_ABI);

let table: TestTable;
let anvil: AnvilInstance;
let provider: JsonRpcProvider;
let owner: JsonRpcSigner;
let hot: JsonRpcSigner;
let wallets: JsonRpcSigner[];
let collector: string;
let usdt: string;
let cfg: Config;
let deps: SubscriptionsDeps;
let tenant: { tenantId: string; bearer: string };
let planId: string;
const clocks = dynamoTenantClocks(true);
/** How far the tenant's clock and anvil's have been moved (ms). */
let offset = 0;

beforeAll(async () => {
  await buildContractsOutOfProcess();
  // The catalogue's chain id of Ethereum on the `test` stage (Sepolia): the setup's typed data names it.
  [table, anvil] = await Promise.all([startTestTable(), startAnvil({ chainId: 11_155_111 })]);
  resetConfig();
  await putFixedRates();
  provider = new JsonRpcProvider(anvil.rpcUrl, anvil.chainId, { batchMaxCount: 1, staticNetwork: true, pollingInterval: 20, cacheTimeout: -1 });
  const signers = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((i) => provider.getSigner(i)));
  [owner, hot] = signers as [JsonRpcSigner, JsonRpcSigner];
  wallets = signers.slice(2);
  collector = (await deploySubscriptionCollector(owner, { collector: hot.address })).address;
  usdt = await deployTestToken(owner, TEST_TOKENS.USDT);
  for (const w of wallets) await mintTestToken(owner, usdt, w.address, 100n * UNITS);
  cfg = servingEth({
    STAGE: 'test',
    EVM_RPC_URLS: JSON.stringify({ ETH: anvil.rpcUrl }),
    TOKEN_CONTRACTS: JSON.stringify({ ...(JSON.parse(EVERY_TOKEN_CONTRACT) as Record<string, string>), USDTERC20: usdt }),
    SUBSCRIPTION_COLLECTOR_CONTRACT: collector,
  });
  // The hot wallet is anvil's unlocked account here (the engine's KMS signing is tested on its own).
  deps = pullSubscriptionsRuntime(cfg, async () => ({ keyId: 'anvil-hot', address: hot.address }));
  tenant = await tenantWithToken('Pull subscriptions');
  const t = await dynamoTenants.get(tenant.tenantId);
  if (!t) throw new Error('no tenant');
  const plan = await createPlan(
    {
      tenant: t,
      body: { name: 'Monthly', amount: AMOUNT, price_currency: 'USD', currency: 'USDTERC20', interval: 'month', interval_count: 1, grace_days: 3 },
      now: new Date(),
      idempotency: null,
    },
    deps,
  );
  planId = plan.id;
}, 180_000);

afterAll(async () => {
  provider?.destroy();
  await anvil?.close();
  await table?.stop();
});

const tokenBalance = async (who: string): Promise<bigint> => (await new Contract(usdt, ERC20_ABI, provider).getFunction('balanceOf')(who)) as bigint;
const send = async (signer: JsonRpcSigner, to: string, data: string) => {
  const receipt = await (await signer.sendTransaction({ to, data, gasLimit: 1_000_000n })).wait();
  if (!receipt) throw new Error('no receipt');
  return receipt;
};

/**
 * Moves the tenant's clock to `iso` plus a minute, and anvil's to at least the tenant's time, as `dev clock advance`
 * does on the local stack (`moveLocalChains`): the contract would refuse a period the chain's clock has not opened.
 */
async function moveTo(iso: string): Promise<void> {
  offset = Math.max(offset, Math.ceil((Date.parse(iso) + 60_000 - Date.now()) / 1000) * 1000);
  await clocks.set(tenant.tenantId, offset);
  const moved = await moveLocalChains({ ETH: anvil.rpcUrl }, Math.ceil((Date.now() + offset) / 1000));
  const block = await provider.getBlock('latest');
  expect(block?.timestamp ?? 0).toBeGreaterThanOrEqual(Math.floor((Date.now() + offset) / 1000) - 1);
  expect(moved.ETH).toBeGreaterThanOrEqual(0);
}

const advance = () => advanceDue(new Date(), deps, 'https://pay.example.com');
const stored = async (id: string): Promise<SubscriptionState> => (await deps.subscriptions.get(tenant.tenantId, id)) as SubscriptionState;

async function subscribe(wallet: JsonRpcSigner): Promise<SubscriptionState> {
  const t = await dynamoTenants.get(tenant.tenantId);
  if (!t) throw new Error('no tenant');
  return createSubscription(
    {
      tenant: t,
      body: { plan_id: planId, customer_reference: `cust-${wallet.address}`, collection: 'pull', wallet_address: wallet.address.toLowerCase() },
      now: new Date(),
      origin: 'https://pay.example.com',
      idempotency: null,
    },
    deps,
  );
}

/** The subscriber's wallet sends the setup's two calls: the approval and its own authorisation. */
async function approveAndAuthorize(wallet: JsonRpcSigner, s: SubscriptionState): Promise<void> {
  const setup = subscriptionRecord(s, deps.mandates).setup as { calls: { approve: { to: string; data: string }; authorize: { to: string; data: string } } };
  await send(wallet, setup.calls.approve.to, setup.calls.approve.data);
  await send(wallet, setup.calls.authorize.to, setup.calls.authorize.data);
}

/** The open chain-tx request of a batch of charges carrying cycle `index`'s charge of `s`. */
async function batchOf(s: SubscriptionState, index: number): Promise<ChainTx> {
  // The open cycle's charge (a retry has its own reference), else the period's first attempt.
  const open = (await stored(s.id)).openCycle;
  const reference = open?.index === index && open.charge ? open.charge.reference : chargeReference(s.tenantId, s.id, index);
  const requests = (await dynamoChainTxStore.listOpen('ETH')).filter((r) => r.purpose === 'subscription_charge' && (r.items ?? []).includes(reference));
  expect(requests).toHaveLength(1);
  return requests[0] as ChainTx;
}

/** Plays the chain-tx engine for a batch: sends its call data from the hot account, settles its result as chain-results does. */
async function mineBatch(request: ChainTx): Promise<string> {
  expect(request).toMatchObject({ purpose: 'subscription_charge', to: collector, status: 'queued', tenantId: 'platform' });
  const receipt = await send(hot, request.to, request.data);
  const event = parseRoutedEvent(
    {
      event_id: `e-${request.reference}`,
      tenant_id: 'platform',
      type: 'chain_tx.confirmed',
      occurred_at: new Date().toISOString(),
      payload: { request_id: request.requestId, network: 'ETH', reference: request.reference, purpose: request.purpose, tx_hash: receipt.hash },
    },
    CHAIN_RESULT_EVENTS,
  );
  const settle = {
    subscriptionCharges: (requestId: string, result: { ok: true; txHash: string } | { ok: false }, now: Date) =>
      onChargeBatchResult(requestId, result, now, deps),
  };
  expect(await onChainResult(event, { settle: { ...settle, sweep: fail, withdrawal: fail }, clock: systemClock })).toBe('subscription_charge');
  return receipt.hash;
}

/**
 * Cycle `index`'s charge of `s`: in its batch (with other subscriptions' charges of the moment), exactly the mandate's
 * cap for its own period; mined and settled.
 */
async function mineCharge(s: SubscriptionState, index: number): Promise<string> {
  const request = await batchOf(s, index);
  const charges = decodeChargeBatchData(request.data);
  expect(charges).toHaveLength(request.items?.length ?? 0);
  const mine = charges.filter((c) => c.mandate.subscriber === s.mandate?.subscriber);
  expect(mine.map((c) => ({ period: c.period, amount: c.amount }))).toEqual([{ period: BigInt(index), amount: UNITS }]);
  return mineBatch(request);
}
const fail = async (): Promise<never> => {
  throw new Error('not a subscription charge');
};

const eventTypes = async (id: string) => (await outboxChanges(`subscription:${id}:`)).flat().map((e) => e.type);
const mainBalance = async () => (await getBalance(tenant.tenantId, 'main', 'USDTERC20')).amount;

describe('pull subscriptions', () => {
  it('refuses pull where it cannot charge: no collector configured, a currency that is not an EVM stablecoin, a missing or bad wallet', async () => {
    // The API as deployed without a hot wallet: no collector on the network.
    const api = caller(routedApi(cfg, ['subscriptions']), () => tenant.bearer);
    const wallet = (wallets[0] as JsonRpcSigner).address;
    const noCollector = await api('POST', '/subscriptions/', {
      body: { plan_id: planId, customer_reference: 'c', collection: 'pull', wallet_address: wallet },
    });
    expect(noCollector.status).toBe(400);
    expect(JSON.stringify(noCollector.body)).toContain('no subscription collector on the ETH network');
    const missing = await api('POST', '/subscriptions/', { body: { plan_id: planId, customer_reference: 'c', collection: 'pull' } });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('wallet_address');
    const bad = await api('POST', '/subscriptions/', { body: { plan_id: planId, customer_reference: 'c', collection: 'pull', wallet_address: '0x1234' } });
    expect(bad.status).toBe(400);
    const pushWithWallet = await api('POST', '/subscriptions/', {
      body: { plan_id: planId, customer_reference: 'c', collection: 'push', wallet_address: wallet },
    });
    expect(pushWithWallet.status).toBe(400);
    expect(JSON.stringify(pushWithWallet.body)).toContain('Only a pull subscription charges a wallet');
    // An ETH plan: not a stablecoin.
    const t = await dynamoTenants.get(tenant.tenantId);
    const eth = await createPlan(
      {
        tenant: t as NonNullable<typeof t>,
        body: { name: 'ETH', amount: '20', price_currency: 'USD', currency: 'ETH', interval: 'month' },
        now: new Date(),
        idempotency: null,
      },
      deps,
    );
    await expect(
      createSubscription(
        {
          tenant: t as NonNullable<typeof t>,
          body: { plan_id: eth.id, customer_reference: 'c', collection: 'pull', wallet_address: wallet },
          now: new Date(),
          origin: '',
          idempotency: null,
        },
        deps,
      ),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('activates once the wallet approves and authorises, charges once a period across three periods, credits the merchant, and expires after a revocation', async () => {
    const wallet = wallets[0] as JsonRpcSigner;
    const created = await subscribe(wallet);
    expect(created).toMatchObject({ status: 'incomplete', collection: 'pull', cycleIndex: -1, openCycle: null });
    const setup = subscriptionRecord(created, deps.mandates).setup as Record<string, unknown>;
    expect(setup).toMatchObject({
      network: 'ETH',
      chain_id: anvil.chainId,
      collector,
      token: usdt,
      payee: hot.address,
      subscriber: wallet.address,
      per_charge_cap: UNITS.toString(),
      per_period_cap: UNITS.toString(),
      period_seconds: 28 * 86_400,
    });
    // The mandate id the gateway stores is the contract's own id of these terms.
    const onChainId = collectorIface.decodeFunctionResult(
      'mandateId',
      await provider.call({
        to: collector,
        data: collectorIface.encodeFunctionData('mandateId', [
          [wallet.address, usdt, hot.address, UNITS, UNITS, 28 * 86_400, setup.start as number, BigInt(setup.salt as string)],
        ]),
      }),
    )[0] as string;
    expect(setup.mandate_id).toBe(onChainId);

    // Nothing on chain yet: looked at, still incomplete, nothing requested.
    await moveTo(new Date(Date.now() + offset + 2 * 60_000).toISOString());
    await advance();
    expect(await stored(created.id)).toMatchObject({ status: 'incomplete', openCycle: null });
    expect((await dynamoChainTxStore.listOpen('ETH')).filter((r) => r.items?.includes(chargeReference(tenant.tenantId, created.id, 0)))).toEqual([]);

    await approveAndAuthorize(wallet, created);
    await moveTo(new Date(Date.now() + offset + 2 * 60_000).toISOString());
    await advance();
    // Cycle 0 open, its charge requested in the same transaction: the subscription waits on it (no next action).
    const opened = await stored(created.id);
    expect(opened.openCycle?.charge).toMatchObject({ units: UNITS.toString(), txHash: null, failure: null });

    const t = await dynamoTenants.get(tenant.tenantId);
    const fee = platformFee({ amount: AMOUNT, percent: (t as NonNullable<typeof t>).settings.transaction_fee, precision: 6, minFee: '0.1' });
    const before = await mainBalance();
    const walletBefore = await tokenBalance(wallet.address);
    const hotBefore = await tokenBalance(hot.address);

    const hash0 = await mineCharge(opened, 0);
    let s = await stored(created.id);
    expect(s).toMatchObject({ status: 'active', paidCycles: 1, openCycle: null });
    // Settling the same result again changes nothing (the merchant is credited once).
    expect(await onChargeResult(chargeReference(s.tenantId, s.id, 0), { ok: true, txHash: hash0 }, new Date(), deps)).toBe('unchanged');

    for (const index of [1, 2]) {
      await moveTo(s.currentPeriodEnd);
      await advance();
      s = await stored(created.id);
      expect(s.openCycle?.index).toBe(index);
      // The advancer again: the period is charged once (one request, one cycle).
      await advance();
      await mineCharge(s, index);
      s = await stored(created.id);
      expect(s).toMatchObject({ status: 'active', paidCycles: index + 1 });
    }
    expect(await mainBalance()).toBe(add(before, mul(sub(AMOUNT, fee), '3')));
    expect(await tokenBalance(wallet.address)).toBe(walletBefore - 3n * UNITS);
    expect(await tokenBalance(hot.address)).toBe(hotBefore + 3n * UNITS);
    const cycles = await deps.subscriptions.cycles(tenant.tenantId, created.id);
    expect(cycles.map((c) => [c.index, c.status, c.charge?.txHash === hash0])).toEqual([
      [0, 'paid', true],
      [1, 'paid', false],
      [2, 'paid', false],
    ]);

    // The subscriber sets the allowance to 0: the next period's charge fails, past_due, then expired after grace_days.
    await send(wallet, usdt, new Interface(ERC20_ABI).encodeFunctionData('approve', [collector, 0n]));
    await moveTo(s.currentPeriodEnd);
    await advance();
    s = await stored(created.id);
    await mineCharge(s, 3);
    s = await stored(created.id);
    expect(s.status).toBe('past_due');
    expect(s.openCycle?.charge?.failure).toBe('transfer_failed');
    // Retried a day later, within the grace: refused again (the allowance is still 0).
    await moveTo(new Date(Date.parse(s.openCycle?.charge?.failedAt ?? '') + 24 * 3_600_000).toISOString());
    await advance();
    s = await stored(created.id);
    expect(s.openCycle?.charge).toMatchObject({ attempt: 2, failure: null });
    await mineCharge(s, 3);
    s = await stored(created.id);
    expect(s).toMatchObject({ status: 'past_due', openCycle: { charge: { attempt: 2, failure: 'transfer_failed' } } });
    await moveTo(s.openCycle?.expiresAt ?? '');
    await advance();
    s = await stored(created.id);
    expect(s.status).toBe('expired');
    expect(await mainBalance()).toBe(add(before, mul(sub(AMOUNT, fee), '3')));
    const types = await eventTypes(created.id);
    for (const type of ['subscription.created', 'subscription.activated', 'subscription.renewed', 'subscription.past_due', 'subscription.expired'])
      expect(types).toContain(type);
    expect(types.filter((type) => type === 'subscription.renewed')).toHaveLength(2);
  }, 120_000);

  it('cancel at period end: the paid period runs out, and no further charge is requested', async () => {
    const wallet = wallets[1] as JsonRpcSigner;
    const created = await subscribe(wallet);
    await approveAndAuthorize(wallet, created);
    await moveTo(new Date(Date.now() + offset + 2 * 60_000).toISOString());
    await advance();
    await mineCharge(await stored(created.id), 0);
    const canceled = await cancelSubscription({ tenantId: tenant.tenantId, id: created.id, atPeriodEnd: true, now: new Date(), idempotency: null }, deps);
    expect(canceled).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    await moveTo(canceled.currentPeriodEnd);
    await advance();
    expect(await stored(created.id)).toMatchObject({ status: 'canceled', cycleIndex: 0 });
    expect((await dynamoChainTxStore.listOpen('ETH')).filter((r) => r.items?.includes(chargeReference(tenant.tenantId, created.id, 1)))).toEqual([]);
  }, 120_000);

  it('a mandate the subscriber revokes on the collector ends the subscription at its next charge', async () => {
    const wallet = wallets[2] as JsonRpcSigner;
    const created = await subscribe(wallet);
    await approveAndAuthorize(wallet, created);
    await moveTo(new Date(Date.now() + offset + 2 * 60_000).toISOString());
    await advance();
    await mineCharge(await stored(created.id), 0);
    // revoke(terms) by the subscriber: the same terms as authorize, another selector.
    const m = (await stored(created.id)).mandate;
    if (!m) throw new Error('no mandate');
    await send(
      wallet,
      collector,
      collectorIface.encodeFunctionData('revoke', [[m.subscriber, m.token, m.payee, m.perChargeCap, m.perPeriodCap, m.periodSeconds, m.start, m.salt]]),
    );
    let s = await stored(created.id);
    await moveTo(s.currentPeriodEnd);
    await advance();
    await mineCharge(await stored(created.id), 1);
    s = await stored(created.id);
    expect(s.status).toBe('expired');
    const cycles = await deps.subscriptions.cycles(tenant.tenantId, created.id);
    expect(cycles.map((c) => [c.index, c.status, c.charge?.failure ?? null])).toEqual([
      [0, 'paid', null],
      [1, 'unpaid', 'revoked'],
    ]);
  }, 120_000);

  it("a period's charges of several subscriptions go out in ONE chargeBatch (once, whichever run sends them), each cycle settled by its own outcome", async () => {
    const [w1, w2] = [wallets[3], wallets[4]] as [JsonRpcSigner, JsonRpcSigner];
    const a = await subscribe(w1);
    const b = await subscribe(w2);
    await approveAndAuthorize(w1, a);
    await approveAndAuthorize(w2, b);
    const before = await mainBalance();
    await moveTo(new Date(Date.now() + offset + 2 * 60_000).toISOString());
    // The subscriptions advanced one by one (their charges pending), then two runs send the pending charges at once.
    for (const id of [a.id, b.id]) await advanceSubscription(tenant.tenantId, id, new Date(), deps, 'https://pay.example.com');
    const collector = deps.collector as NonNullable<typeof deps.collector>;
    const runs = await Promise.all([collector.dispatchCharges(), collector.dispatchCharges()]);
    expect(runs.reduce((sum, r) => sum + r.charges, 0)).toBe(2);
    expect(runs.reduce((sum, r) => sum + r.batches, 0)).toBe(1);
    const request = await batchOf(await stored(a.id), 0);
    expect(request.items).toEqual(expect.arrayContaining([chargeReference(tenant.tenantId, a.id, 0), chargeReference(tenant.tenantId, b.id, 0)]));
    expect(
      decodeChargeBatchData(request.data)
        .map((c) => c.mandate.subscriber)
        .sort(),
    ).toEqual([w1.address, w2.address].sort());
    // Another run sends nothing more: the charges left the pending ones with the batch's request.
    expect((await advance()).charges).toBe(0);
    const hash = await mineBatch(request);
    for (const id of [a.id, b.id]) {
      expect(await stored(id)).toMatchObject({ status: 'active', paidCycles: 1 });
      expect((await deps.subscriptions.cycles(tenant.tenantId, id))[0]?.charge?.txHash).toBe(hash);
    }
    const t = await dynamoTenants.get(tenant.tenantId);
    const fee = platformFee({ amount: AMOUNT, percent: (t as NonNullable<typeof t>).settings.transaction_fee, precision: 6, minFee: '0.1' });
    expect(await mainBalance()).toBe(add(before, mul(sub(AMOUNT, fee), '2')));
  }, 120_000);

  it('a charge refused for want of allowance is retried a day later: the subscriber approved again, the subscription is active again', async () => {
    const wallet = wallets[5] as JsonRpcSigner;
    const created = await subscribe(wallet);
    await approveAndAuthorize(wallet, created);
    await moveTo(new Date(Date.now() + offset + 2 * 60_000).toISOString());
    await advance();
    await mineCharge(await stored(created.id), 0);
    const erc20 = new Interface(ERC20_ABI);
    await send(wallet, usdt, erc20.encodeFunctionData('approve', [collector, 0n]));
    let s = await stored(created.id);
    await moveTo(s.currentPeriodEnd);
    await advance();
    await mineCharge(await stored(created.id), 1);
    s = await stored(created.id);
    expect(s.status).toBe('past_due');
    await send(wallet, usdt, erc20.encodeFunctionData('approve', [collector, 12n * UNITS]));
    // Not before the day is out.
    await advance();
    expect((await stored(created.id)).openCycle?.charge).toMatchObject({ attempt: 1, failure: 'transfer_failed' });
    await moveTo(new Date(Date.parse(s.openCycle?.charge?.failedAt ?? '') + 24 * 3_600_000).toISOString());
    await advance();
    await mineCharge(await stored(created.id), 1);
    s = await stored(created.id);
    expect(s).toMatchObject({ status: 'active', paidCycles: 2 });
    const cycles = await deps.subscriptions.cycles(tenant.tenantId, created.id);
    expect(cycles.map((c) => [c.index, c.status, c.charge?.attempt])).toEqual([
      [0, 'paid', 1],
      [1, 'paid', 2],
    ]);
    expect(await eventTypes(created.id)).toContain('subscription.renewed');
  }, 120_000);
});
