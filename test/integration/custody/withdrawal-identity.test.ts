import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { custodyApi } from '../../support/custody.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { outboxChanges } from '../../support/outbox.js';
import { withdrawalsApi } from '../../support/withdrawals.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';

/**
 * Custody withdrawals are not main-account withdrawals (issue 25, item 9), on DynamoDB Local through the real
 * handlers: `/withdrawal/...` does not know them (404, not in the list), the custody group reads and cancels them,
 * the history shows them as custody movements with their custody record's amounts, the statistics count them as
 * custody, and their webhooks are `custody_withdrawal_update`, never a main withdrawal's events.
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
let table: TestTable;
let t: { tenantId: string; bearer: string };
let other: { tenantId: string; bearer: string };
let custody: ReturnType<typeof caller>;
let withdrawals: ReturnType<typeof caller>;
let history: ReturnType<typeof caller>;
let accountId: string;
let custodyId: string;
let mainId: string;

type Row = Record<string, unknown>;

beforeAll(async () => {
  table = await startTestTable();
  await putFixedRates();
  t = await tenantWithToken('Custody identity');
  other = await tenantWithToken('Custody identity, other tenant');
  const api = custodyApi(servingEth({ HOT_WALLET_KEY_ID: 'identity-hot-wallet' }));
  custody = caller(api, () => t.bearer);
  withdrawals = caller(withdrawalsApi(), () => t.bearer);
  history = caller((await import('../../../functions/transactions/handler.js')).handler, () => t.bearer);

  accountId = (await custody('POST', '/custody/accounts', { body: { name: 'Identity treasury' } })).body.account_id as string;
  await creditAdjustment(
    { tenant_id: t.tenantId, account: `custody:${accountId}`, currency: 'USDTERC20', amount: '100', reason: 'test funding' },
    ledgerRuntime(),
  );
  await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDTERC20', amount: '100', reason: 'test funding' }, ledgerRuntime());
  const made = await custody('POST', '/custody/withdraw', {
    body: { account_id: accountId, blockchain: 'ETH', amount: 20, destination_address: DEST, custom_id: 'payout-cw' },
  });
  expect(made.status).toBe(200);
  custodyId = String(made.body.withdrawal_id);
  const main = await withdrawals('POST', '/withdrawal/', { body: { amount: '10', currency: 'USDTERC20', address: DEST, custom_id: 'payout-main' } });
  expect(main.status).toBe(201);
  mainId = String(main.body.id);
});

afterAll(async () => {
  await table?.stop();
});

const held = async () => getBalance(t.tenantId, `custody:${accountId}`, 'USDTERC20');

it('is not found under /withdrawal/: neither its record, its status, its cancel nor the list know it', async () => {
  for (const [method, path, body] of [
    ['GET', `/withdrawal/${custodyId}/`, undefined],
    ['POST', '/withdrawal/status/', { withdrawal_id: custodyId }],
    ['POST', `/withdrawal/${custodyId}/cancel/`, undefined],
  ] as const) {
    const res = await withdrawals(method, path, body ? { body } : {});
    expect([path, res.status, res.body.error?.code]).toEqual([path, 404, 'not_found']);
  }
  expect(await held()).toEqual({ amount: '80', pending: '0', locked: '20' });
  const listed = await withdrawals('GET', '/withdrawal/');
  expect([(listed.body.withdrawals as Row[]).map((w) => w.withdrawal_id), listed.body.total]).toEqual([[mainId], 1]);
  // The main withdrawal is still read there.
  expect((await withdrawals('GET', `/withdrawal/${mainId}/`)).body).toMatchObject({ id: mainId, account_id: null, amount: '10.00000000' });
});

it('is read in the custody group with its custody account; a main withdrawal or another tenant is 404 there', async () => {
  const read = await custody('GET', `/custody/withdrawals/${custodyId}`);
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({
    withdrawal_id: custodyId,
    account_id: accountId,
    blockchain: 'ETH',
    amount: 20,
    status: 'pending',
    custom_id: 'payout-cw',
    transaction_hash: null,
  });
  expect((await custody('GET', `/custody/withdrawals/${mainId}`)).status).toBe(404);
  expect((await custody('GET', '/custody/withdrawals/not-an-id')).status).toBe(404);
  const foreign = await caller(custodyApi(servingEth()), () => other.bearer)('GET', `/custody/withdrawals/${custodyId}`);
  expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
});

it('is a custody movement in the history and the statistics, with the amounts of its custody record', async () => {
  const all = (await history('GET', '/transactions/transactions/')).body.transactions as Row[];
  expect(all.find((r) => r.id === custodyId)).toMatchObject({
    type: 'custody',
    subtype: 'withdrawal',
    status: 'pending',
    direction: 'out',
    currency: 'USDTERC20',
    amount: '20.00000000',
    fee: '3.16831700',
    net_amount: '20.00000000',
    custom_id: accountId,
    order_id: 'payout-cw',
    wallet_id: null,
  });
  const mainOnly = (await history('GET', '/transactions/transactions/', { query: { type: 'withdrawal' } })).body;
  expect([(mainOnly.transactions as Row[]).map((r) => r.id), mainOnly.total]).toEqual([[mainId], 1]);
  const custodyOnly = (await history('GET', '/transactions/transactions/', { query: { type: 'custody', status: 'pending' } })).body;
  expect([(custodyOnly.transactions as Row[]).map((r) => r.id), custodyOnly.total]).toEqual([[custodyId], 1]);
  const stats = (await history('GET', '/transactions/stats/')).body;
  expect([stats.counts.withdrawal, stats.counts.custody]).toEqual([
    { total: 1, by_status: { pending: 1 } },
    { total: 1, by_status: { pending: 1 } },
  ]);
  // The tenant's totals count the main account's withdrawals only.
  const me = await caller((await import('../../../functions/user/handler.js')).handler, () => t.bearer)('GET', '/user/me/');
  expect(me.body.statistics.total_withdrawals).toBe(1);
});

it('announces itself as custody_withdrawal_update only, to the end, and is cancelled in the custody group', async () => {
  const cancelled = await custody('POST', `/custody/withdrawals/${custodyId}/cancel`);
  expect([cancelled.status, cancelled.body.status, cancelled.body.account_id]).toEqual([200, 'cancelled', accountId]);
  expect(await held()).toEqual({ amount: '100', pending: '0', locked: '0' });
  expect((await custody('POST', `/custody/withdrawals/${custodyId}/cancel`)).body.error.code).toBe('invalid_state');

  const events = (await outboxChanges(`withdrawal:${custodyId}:`)).flat();
  expect(events.map((e) => [e.type, e.payload.status, e.payload.previous_status]).sort()).toEqual([
    ['custody_withdrawal_update', 'cancelled', 'pending'],
    ['custody_withdrawal_update', 'pending', null],
  ]);
  for (const e of events) {
    expect(e.payload).toMatchObject({
      withdrawal_id: custodyId,
      account_id: accountId,
      amount: '20.00000000',
      net_amount: '16.83168300',
      custom_id: 'payout-cw',
    });
  }
  // A main withdrawal still sends the main withdrawal events.
  const mainEvents = (await outboxChanges(`withdrawal:${mainId}:`)).flat().map((e) => e.type);
  expect(mainEvents.sort()).toEqual(['withdrawal.created', 'withdrawal.status_changed', 'withdrawal_status_update']);
});
