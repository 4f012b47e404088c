import { dynamoHotCoins } from '../../shared/store/btc-coins.js';
import { getBalance } from '../../shared/store/ledger.js';
import { getPayment } from '../../shared/store/payments.js';
import { caller, tenantWithToken } from '../integration/payments/support.js';
import { outboxChanges } from '../support/outbox.js';
import { customerWallet, elsewhereAddress, local as localOf, startBtcStack } from './btc-support.js';
import type { BtcStack, Customer } from './btc-support.js';

/**
 * BTC payments on the local stack (DynamoDB Local, the KMS server with the hot wallet's key) and the local Bitcoin
 * node behind its Esplora API, through the handlers as deployed: the payments API and the chain-scanner worker. The
 * customer is a wallet of the test's own (./btc-support.ts); the node mines on the test's word (`/_local/mine`), the
 * one difference from the stack's own (which mines every 2 s): whether a payment is first seen in the mempool or in
 * a block is then the test's to say.
 */
let btc: BtcStack;
let customer: Customer;
let call: ReturnType<typeof caller>;
let merchant: { tenantId: string; bearer: string };

const elsewhere = elsewhereAddress();

const local = (path: string, body: unknown) => localOf(btc.node, path, body);
const mine = (blocks = 1) => local('/_local/mine', { blocks });
const pass = () => btc.pass();

const sats = (amount: string): bigint => BigInt(Math.round(Number(amount) * 1e8));

/** The `deposit_received` payloads the payment's changes wrote (numbers as the outbox keeps them: read as numbers). */
async function depositsReceived(id: string): Promise<Record<string, unknown>[]> {
  const events = (await outboxChanges(`payment:${id}:`)).flat().filter((e) => e.type === 'deposit_received');
  return events.map((e) => ({ ...e.payload, confirmations: Number((e.payload.confirmations as { value?: string }).value ?? e.payload.confirmations) }));
}

beforeAll(async () => {
  btc = await startBtcStack();
  customer = customerWallet(btc.node);
  const { handler } = await import('../../functions/payments/handler.js');
  merchant = await tenantWithToken('Local BTC merchant');
  call = caller(handler, () => merchant.bearer);
});

afterAll(async () => {
  await btc?.stop();
});

describe('BTC payments on the local stack', () => {
  it('paid by a wallet of its own: seen in the mempool at the next pass, confirmed, credited, its output a hot-wallet coin', async () => {
    const created = await call('POST', '/payments/', { body: { amount: '60', currency: 'BTC' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ blockchain: 'BTC', currency: 'BTC', amount_crypto: '0.00100000', status: 'waiting' });
    const id = created.body.transaction_id as string;
    const address = created.body.address as string;
    expect(address).toMatch(/^bcrt1q/);

    const coin = await customer.fundedCoin(1_000_000n);
    const paid = customer.spend(coin, address, sats(created.body.amount_crypto), 1_000n, 0xffffffff);
    const broadcastAt = Date.now();
    const txid = await customer.broadcast(paid);
    await pass();
    const seenAfterMs = Date.now() - broadcastAt;
    const seen = await call('GET', `/payments/${id}/`);
    expect(seen.body).toMatchObject({ status: 'confirming', transaction_hash: txid });
    expect(seen.body.payment_history).toEqual([expect.objectContaining({ transaction_hash: txid, confirmations: 0 })]);
    expect(await depositsReceived(id)).toEqual([expect.objectContaining({ confirmations: 0, replaceable: false, transaction_hash: txid })]);

    await mine();
    await pass();
    expect((await call('GET', `/payments/${id}/`)).body).toMatchObject({
      status: 'confirming',
      payment_history: [expect.objectContaining({ confirmations: 1 })],
    });
    await mine();
    await pass();
    const done = await call('GET', `/payments/${id}/`);
    expect(done.body).toMatchObject({ status: 'completed', transaction_hash: txid });
    // 1 % fee: 0.001 less 0.00001.
    expect((await getBalance(merchant.tenantId, 'main', 'BTC')).amount).toBe('0.00099');
    const stored = await getPayment(merchant.tenantId, id);
    const coins = await dynamoHotCoins.available('BTC', 100);
    expect(coins.filter((c) => c.txid === txid)).toEqual([
      { network: 'BTC', txid, vout: 0, value: 100_000n, tag: stored?.salt, source: `payment:${merchant.tenantId}:${id}`, state: 'available' },
    ]);
    // Seen by the first pass after the broadcast (a figure, not asserted: it depends on the machine).
    process.stdout.write(`btc e2e: payment seen ${seenAfterMs} ms after its broadcast\n`);
  });

  it('a replaceable payment replaced (BIP125) by one paying elsewhere returns to waiting and is never credited', async () => {
    const created = await call('POST', '/payments/', { body: { amount: '60', currency: 'BTC' } });
    const id = created.body.transaction_id as string;
    const before = (await getBalance(merchant.tenantId, 'main', 'BTC')).amount;
    const coin = await customer.fundedCoin(1_000_000n);
    const first = customer.spend(coin, created.body.address as string, sats(created.body.amount_crypto), 1_000n, 0xfffffffd);
    const firstId = await customer.broadcast(first);
    await pass();
    expect((await call('GET', `/payments/${id}/`)).body).toMatchObject({ status: 'confirming', transaction_hash: firstId });
    expect(await depositsReceived(id)).toEqual([expect.objectContaining({ replaceable: true, confirmations: 0 })]);

    // The same coin spent again, elsewhere, at a higher fee: the node replaces the first (BIP125).
    const replacement = customer.spend(coin, elsewhere, sats(created.body.amount_crypto), 5_000n, 0xfffffffd);
    await customer.broadcast(replacement);
    await pass();
    const back = await call('GET', `/payments/${id}/`);
    expect(back.body).toMatchObject({ status: 'waiting', transaction_hash: null, payment_history: [] });
    // `payment:<id>:status:<version>:<status>`, in the order of the payment's versions (a scan of the table has none).
    const statuses = (await outboxChanges(`payment:${id}:`))
      .flat()
      .filter((e) => e.type === 'payment_status_update')
      .map((e) => /:status:(\d+):([a-z_]+)$/.exec(e.eventId))
      .map((m) => [Number(m?.[1]), m?.[2]] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, status]) => status);
    expect(statuses).toEqual(['confirming', 'waiting']);

    await mine(3);
    await pass();
    await pass();
    expect((await call('GET', `/payments/${id}/`)).body.status).toBe('waiting');
    expect((await getBalance(merchant.tenantId, 'main', 'BTC')).amount).toBe(before);
    expect((await dynamoHotCoins.available('BTC', 100)).filter((c) => c.source === `payment:${merchant.tenantId}:${id}`)).toEqual([]);
  });

  it('a reorganisation that drops the paying transaction undoes its deposit: the payment returns to waiting', async () => {
    const created = await call('POST', '/payments/', { body: { amount: '60', currency: 'BTC' } });
    const id = created.body.transaction_id as string;
    const coin = await customer.fundedCoin(1_000_000n);
    const txid = await customer.broadcast(customer.spend(coin, created.body.address as string, sats(created.body.amount_crypto), 1_000n, 0xffffffff));
    await mine();
    await pass();
    expect((await call('GET', `/payments/${id}/`)).body).toMatchObject({
      status: 'confirming',
      payment_history: [expect.objectContaining({ confirmations: 1 })],
    });
    // The block is replaced by two without the transaction (and it is not in the mempool any more either).
    const reorg = await local('/_local/reorg', { depth: 1, drop: [txid] });
    expect(reorg.disconnected).toHaveLength(1);
    await pass();
    expect((await call('GET', `/payments/${id}/`)).body).toMatchObject({ status: 'waiting', transaction_hash: null, payment_history: [] });
    await mine(2);
    await pass();
    expect((await call('GET', `/payments/${id}/`)).body.status).toBe('waiting');
  });

  it('BTC is listed, priced and payable: currencies, rates, minimum and estimate', async () => {
    const { handler } = await import('../../functions/currencies/handler.js');
    const currencies = caller(handler, () => merchant.bearer);
    expect((await currencies('GET', '/currencies/')).body.currencies).toContain('BTC');
    const rates = await currencies('GET', '/rates/');
    expect(rates.status).toBe(200);
    expect(JSON.stringify(rates.body)).toContain('BTC');
    const min = await call('GET', '/payments/min-amount/', { query: { currency: 'BTC' } });
    expect(min.status).toBe(200);
    expect(min.body).toMatchObject({ currency: 'BTC' });
    const estimate = await call('POST', '/payments/estimate/', { body: { amount: '60', currency: 'BTC' } });
    expect(estimate.status).toBe(200);
    expect(JSON.stringify(estimate.body)).toContain('0.001');
  });
});
