import { systemClock } from '../../../shared/domain/clock.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { dynamoCustodyPolicies } from '../../../shared/store/custody.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { updateTenantSettings } from '../../../shared/store/tenants.js';
import { dynamoWithdrawals } from '../../../shared/store/withdrawals.js';
import { decideReview, setReviewPolicy } from '../../../shared/usecases/custody/review.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { custodyApi } from '../../support/custody.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { withdrawalsApi } from '../../support/withdrawals.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';

/**
 * Custody withdrawals inside the tenant's rules (issue 25, items 1 and 2), through the custody and withdrawals
 * handlers on DynamoDB Local: the tenant's USD limits, with one day's total for main-account and custody withdrawals
 * together, and the review threshold applied to each withdrawal and to the account's rolling 24-hour total, neither
 * passed by concurrent requests.
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TRON_DEST = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** On ETH a custody withdrawal of 33.3 USDT pays 3 network and 0.3 platform fees: the destination receives 30. */
const GROSS_30 = 33.3;
let table: TestTable;
let custody: ReturnType<typeof custodyApi>;
let withdrawals: ReturnType<typeof withdrawalsApi>;

interface Merchant {
  readonly tenantId: string;
  readonly call: ReturnType<typeof caller>;
  readonly main: ReturnType<typeof caller>;
}

async function merchant(name: string, limits: { max_withdrawal_amount: string | null; daily_withdrawal_limit: string | null }): Promise<Merchant> {
  const t = await tenantWithToken(name);
  await updateTenantSettings(t.tenantId, { limits: { max_payment_amount: null, daily_payment_limit: null, ...limits } });
  return { tenantId: t.tenantId, call: caller(custody, () => t.bearer), main: caller(withdrawals, () => t.bearer) };
}

async function account(m: Merchant, amount: string): Promise<string> {
  const made = await m.call('POST', '/custody/accounts', { body: { name: 'Treasury' } });
  await creditAdjustment(
    { tenant_id: m.tenantId, account: `custody:${made.body.account_id}`, currency: 'USDTERC20', amount, reason: 'test funding' },
    ledgerRuntime(),
  );
  return made.body.account_id as string;
}

const withdraw = (m: Merchant, accountId: string, amount: number) =>
  m.call('POST', '/custody/withdraw', { body: { account_id: accountId, blockchain: 'ETH', amount, destination_address: DEST } });

const held = async (m: Merchant, accountId: string) => getBalance(m.tenantId, `custody:${accountId}`, 'USDTERC20');

beforeAll(async () => {
  table = await startTestTable();
  await putFixedRates();
  custody = custodyApi(servingEth({ HOT_WALLET_KEY_ID: 'custody-test-hot-wallet' }));
  withdrawals = withdrawalsApi();
});

afterAll(async () => {
  await table?.stop();
});

describe("custody withdrawals obey the tenant's limits (USD)", () => {
  it('refuses a custody withdrawal above max_withdrawal_amount, as a main withdrawal is refused, holding nothing', async () => {
    const m = await merchant('Custody max', { max_withdrawal_amount: '50', daily_withdrawal_limit: '100' });
    const accountId = await account(m, '10000');
    const over = await withdraw(m, accountId, 500);
    expect([over.status, over.body.error?.code, Object.keys(over.body.error?.details ?? {})]).toEqual([400, 'invalid_request', ['amount']]);
    expect(over.body.error.details.amount[0]).toMatch(/maximum withdrawal amount of 50 USD/);
    expect(await held(m, accountId)).toEqual({ amount: '10000', pending: '0', locked: '0' });
    // The limit is on what the destination receives: 33.3 sends 30.
    const within = await withdraw(m, accountId, GROSS_30);
    expect([within.status, within.body.net_amount]).toEqual([200, 30]);
  });

  it("keeps one day's total for main and custody withdrawals: the one that passes the daily limit is refused, either way", async () => {
    const m = await merchant('Custody daily', { max_withdrawal_amount: '50', daily_withdrawal_limit: '100' });
    await creditAdjustment({ tenant_id: m.tenantId, currency: 'USDTTRC20', amount: '1000', reason: 'test funding' }, ledgerRuntime());
    const accountId = await account(m, '1000');
    const mainWithdrawal = (amount: string) => m.main('POST', '/withdrawal/', { body: { amount, currency: 'USDTTRC20', address: TRON_DEST } });

    expect((await mainWithdrawal('50')).status).toBe(201);
    expect((await withdraw(m, accountId, GROSS_30)).status).toBe(200);
    // 50 + 30 sent today: 30 more would make 110.
    const third = await withdraw(m, accountId, GROSS_30);
    expect([third.status, third.body.error?.code]).toEqual([400, 'invalid_request']);
    expect(third.body.error.details.amount[0]).toMatch(/daily withdrawal limit of 100 USD/);
    // Main withdrawals see the custody ones: 21 more would make 101.
    const main = await mainWithdrawal('21');
    expect([main.status, main.body.error?.code]).toEqual([400, 'invalid_request']);
    expect((await mainWithdrawal('20')).status).toBe(201);
    expect(await held(m, accountId)).toEqual({ amount: '966.7', pending: '0', locked: '33.3' });
  });

  it('lets concurrent custody withdrawals pass the daily limit no more than sequential ones', async () => {
    const m = await merchant('Custody concurrent daily', { max_withdrawal_amount: null, daily_withdrawal_limit: '100' });
    const accountId = await account(m, '1000');
    const answers = await Promise.all(Array.from({ length: 10 }, () => withdraw(m, accountId, GROSS_30)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status !== 200).map((a) => [a.status, a.body.error?.code])).toEqual(Array(7).fill([400, 'invalid_request']));
    expect(await held(m, accountId)).toEqual({ amount: '900.1', pending: '0', locked: '99.9' });
  });
});

describe('the review threshold applies to each withdrawal and to the rolling 24-hour total', () => {
  const policy = (m: Merchant, threshold: string) =>
    setReviewPolicy({ tenant_id: m.tenantId, threshold, allowlist: null }, { policies: dynamoCustodyPolicies });
  const reviewOf = (answer: { status: number; body: Record<string, unknown> }) => {
    expect(answer.status).toBe(200);
    return answer.body.review;
  };
  const waiting = (reason: string) => ({ status: 'awaiting_review', reasons: [reason] });

  it('holds 150, and of five of 99 holds the second, which would take the total over 100, and those after it', async () => {
    const m = await merchant('Custody threshold', { max_withdrawal_amount: null, daily_withdrawal_limit: null });
    await policy(m, '100');
    const accountId = await account(m, '1000');
    expect(reviewOf(await withdraw(m, accountId, 150))).toEqual(waiting('amount_over_threshold'));
    const five = [];
    for (let i = 0; i < 5; i++) five.push(reviewOf(await withdraw(m, accountId, 99)));
    // The 150 held does not count: the operator passes what is held.
    expect(five).toEqual([null, ...Array(4).fill(waiting('rolling_total_over_threshold'))]);
    expect(await held(m, accountId)).toEqual({ amount: '355', pending: '0', locked: '645' });
  });

  it('does not count a withdrawal the operator approved: only what goes out unreviewed adds to the total', async () => {
    const m = await merchant('Custody approved', { max_withdrawal_amount: null, daily_withdrawal_limit: null });
    await policy(m, '100');
    const accountId = await account(m, '1000');
    expect(reviewOf(await withdraw(m, accountId, 60))).toBeNull();
    const second = await withdraw(m, accountId, 50);
    expect(reviewOf(second)).toEqual(waiting('rolling_total_over_threshold'));
    await decideReview(second.body.withdrawal_id as string, { decision: 'approve', by: 'ops-1' }, { withdrawals: dynamoWithdrawals, clock: systemClock });
    expect(reviewOf(await withdraw(m, accountId, 40))).toBeNull();
    expect(reviewOf(await withdraw(m, accountId, 10))).toEqual(waiting('rolling_total_over_threshold'));
  });

  it('lets only one of five concurrent withdrawals of 60 pass a threshold of 100 unreviewed', async () => {
    const m = await merchant('Custody concurrent threshold', { max_withdrawal_amount: null, daily_withdrawal_limit: null });
    await policy(m, '100');
    const accountId = await account(m, '1000');
    const reviews = (await Promise.all(Array.from({ length: 5 }, () => withdraw(m, accountId, 60)))).map(reviewOf);
    expect(reviews.filter((r) => r === null)).toHaveLength(1);
    expect(reviews.filter((r) => r !== null)).toEqual(Array(4).fill(waiting('rolling_total_over_threshold')));
    expect(await held(m, accountId)).toEqual({ amount: '700', pending: '0', locked: '300' });
  });
});
