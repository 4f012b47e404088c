import { resetConfig } from '../../../shared/config/config.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { custodyApi } from '../../support/custody.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { writtenEvent } from '../../support/outbox.js';
import { withdrawalsApi } from '../../support/withdrawals.js';
import { caller, putFixedRates, servingEth, tenantWithToken } from '../payments/support.js';
import { settle } from '../wallets/support.js';

/**
 * One amount, one spelling (issue 25, item 12), on DynamoDB Local through the real handlers: a withdrawal, a wallet
 * transfer and a custody withdrawal, each read through its record, its list, the transaction history and the payload
 * of its webhook. Where an answer carries the amount as a string it is the same string everywhere (a withdrawal's
 * with 8 places, a transfer's at USDT's display precision); where the interface says number, it is that number.
 */
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
let table: TestTable;
let t: { tenantId: string; bearer: string };
let withdrawals: ReturnType<typeof caller>;
let wallets: ReturnType<typeof caller>;
let custody: ReturnType<typeof caller>;
let history: ReturnType<typeof caller>;

type Row = Record<string, unknown>;

/** The history record of a movement. */
async function historyRow(id: string): Promise<Row> {
  const res = await history('GET', '/transactions/transactions/', { query: { limit: '200' } });
  expect(res.status).toBe(200);
  const row = (res.body.transactions as Row[]).find((r) => r.id === id);
  if (!row) throw new Error(`${id} is not in the history`);
  return row;
}

/** The `data` of a webhook event the change wrote (its outbox event, as the delivery sends it). */
async function webhookData(eventId: string): Promise<Row> {
  const event = await writtenEvent(eventId);
  if (!event) throw new Error(`no event ${eventId}`);
  return event.payload as Row;
}

beforeAll(async () => {
  table = await startTestTable();
  process.env.ALLOW_LOOPBACK_CALLBACKS = 'true';
  resetConfig();
  await putFixedRates();
  t = await tenantWithToken('One spelling');
  withdrawals = caller(withdrawalsApi(), () => t.bearer);
  wallets = caller((await import('../../../functions/wallets/handler.js')).handler, () => t.bearer);
  custody = caller(custodyApi(servingEth({ HOT_WALLET_KEY_ID: 'one-spelling-hot-wallet' })), () => t.bearer);
  history = caller((await import('../../../functions/transactions/handler.js')).handler, () => t.bearer);
  await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDTERC20', amount: '500', reason: 'test funding' }, ledgerRuntime());
});

afterAll(async () => {
  await table?.stop();
});

it('spells a withdrawal\'s amounts "12.50000000" in its record, the history and its webhooks, and 12.5 in the list (a number there)', async () => {
  const made = await withdrawals('POST', '/withdrawal/', { body: { amount: '12.5', currency: 'USDTERC20', address: DEST, custom_id: 'spelling-1' } });
  expect(made.status).toBe(201);
  const id = String(made.body.id);
  // Network fee 3, platform fee 1 % of 12.5: 0.125.
  const record = (await withdrawals('GET', `/withdrawal/${id}/`)).body as Row;
  expect([record.amount, record.total_fee, record.total_deducted]).toEqual(['12.50000000', '3.12500000', '15.62500000']);
  expect([made.body.amount, made.body.total_fee, made.body.total_deducted]).toEqual([record.amount, record.total_fee, record.total_deducted]);

  const row = await historyRow(id);
  expect([row.type, row.amount, row.fee, row.net_amount]).toEqual(['withdrawal', record.amount, record.total_fee, record.total_deducted]);

  for (const key of ['status:pending', 'status_changed:pending', 'created']) {
    const data = await webhookData(`withdrawal:${id}:${key}`);
    expect([key, data.amount, data.total_fee, data.total_deducted]).toEqual([key, record.amount, record.total_fee, record.total_deducted]);
  }

  const listed = ((await withdrawals('GET', '/withdrawal/', { query: { custom_id: 'spelling-1' } })).body.withdrawals as Row[])[0];
  expect([listed?.amount, listed?.fee]).toEqual([12.5, 3.125]);
});

it('spells a wallet transfer\'s amount "7.250000" (USDT) in its transfer history, the history and its webhooks', async () => {
  const wallet = (await wallets('POST', '/wallets/', { body: { name: 'Spelling' } })).body.wallet_id as string;
  const accepted = await wallets('POST', '/wallets/transfer-to-user/', { body: { wallet_id: wallet, currency: 'USDTERC20', amount: '7.25' } });
  expect(accepted.status).toBe(202);
  const id = String(accepted.body.transfer_id);
  await settle(id);

  const record = ((await wallets('POST', '/wallets/transfer-history/', { body: { wallet_id: wallet } })).body.transfers as Row[]).find(
    (r) => r.transfer_id === id,
  );
  expect([record?.status, record?.amount]).toEqual(['completed', '7.250000']);
  const row = await historyRow(id);
  expect([row.type, row.amount, row.net_amount]).toEqual(['transfer', '7.250000', '7.250000']);
  for (const key of ['accepted', 'completed']) expect([key, (await webhookData(`wallet_transfer:${id}:${key}`)).amount]).toEqual([key, '7.250000']);
});

it('spells a custody withdrawal\'s amounts "20.00000000" in the history and its webhook, and 20 in its custody record (a number there)', async () => {
  const accountId = (await custody('POST', '/custody/accounts', { body: { name: 'Spelling treasury' } })).body.account_id as string;
  await creditAdjustment(
    { tenant_id: t.tenantId, account: `custody:${accountId}`, currency: 'USDTERC20', amount: '100', reason: 'test funding' },
    ledgerRuntime(),
  );
  const made = await custody('POST', '/custody/withdraw', { body: { account_id: accountId, blockchain: 'ETH', amount: 20, destination_address: DEST } });
  expect(made.status).toBe(200);
  const id = String(made.body.withdrawal_id);
  // 20 leaves the account: network fee 3 and 1 % of what is sent (20 - 3 = 1.01 x 16.831683), rounded in the platform's favour.
  expect([made.body.amount, made.body.fee, made.body.net_amount]).toEqual([20, 3.168317, 16.831683]);

  const row = await historyRow(id);
  expect([row.amount, row.fee, row.net_amount]).toEqual(['20.00000000', '3.16831700', '20.00000000']);
  const data = await webhookData(`withdrawal:${id}:status:pending`);
  expect([data.amount, data.fee, data.net_amount]).toEqual(['20.00000000', '3.16831700', '16.83168300']);
  // The same amounts as the record's numbers.
  expect([row.amount, data.fee, data.net_amount].map(Number)).toEqual([made.body.amount, made.body.fee, made.body.net_amount]);
});
