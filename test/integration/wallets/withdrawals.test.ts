import { resetConfig } from '../../../shared/config/config.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { dynamoChainTxStore } from '../../../shared/store/chain-tx.js';
import { getBalance } from '../../../shared/store/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { runWithdrawalBatch } from '../../../shared/usecases/withdrawals/process.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { batcherDeps, withdrawalsApi } from '../../support/withdrawals.js';
import { caller, putFixedRates, tenantWithToken } from '../payments/support.js';
import { settle } from './support.js';

/** A withdrawal with account_id holds and pays out from that wallet, never from main. */
let table: TestTable;

beforeAll(async () => {
  table = await startTestTable();
  resetConfig();
  await putFixedRates();
});

afterAll(async () => {
  await table?.stop();
});

it('holds and debits the wallet account_id names; main is untouched; an unknown account_id is refused', async () => {
  const t = await tenantWithToken('Wallet withdrawals');
  const wallets = caller((await import('../../../functions/wallets/handler.js')).handler, () => t.bearer);
  const withdrawals = caller(withdrawalsApi(), () => t.bearer);
  await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDTERC20', amount: '200', reason: 'test funding' }, ledgerRuntime());
  const wallet = (await wallets('POST', '/wallets/', { body: { name: 'Seller' } })).body;
  const account = `wallet:${wallet.wallet_id}` as const;
  const moved = await wallets('POST', '/wallets/transfer-to-user/', { body: { wallet_id: wallet.id, currency: 'USDTERC20', amount: '50' } });
  await settle(moved.body.transfer_id);

  const staging = '0x0000000000000000000000000000000000000001';
  const body = (amount: string, accountId: string) => ({ amount, currency: 'USDTERC20', address: staging, account_id: accountId });
  const unknown = await withdrawals('POST', '/withdrawal/', { body: body('10', 'no-such-wallet') });
  expect([unknown.status, Object.keys(unknown.body.error.details)]).toEqual([400, ['account_id']]);
  // More than the wallet holds, though main could cover it.
  const tooMuch = await withdrawals('POST', '/withdrawal/', { body: body('48', wallet.wallet_id) });
  expect([tooMuch.status, tooMuch.body.error.code]).toEqual([400, 'insufficient_balance']);

  const created = await withdrawals('POST', '/withdrawal/', { body: body('10', wallet.wallet_id) });
  expect(created.status).toBe(201);
  // 10 plus the network fee (3) and the platform fee (0.1), held on the wallet.
  expect(created.body.total_deducted).toBe('13.10000000');
  expect(await getBalance(t.tenantId, account, 'USDTERC20')).toEqual({ amount: '36.9', pending: '0', locked: '13.1' });
  expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '150', pending: '0', locked: '0' });

  const report = await runWithdrawalBatch(
    batcherDeps({
      wallet: async () => ({ keyId: 'key-1', address: '0x1111111111111111111111111111111111111111' }),
      chainTx: { store: dynamoChainTxStore, clock: () => new Date() },
      tokenContract: () => '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    }),
  );
  expect(report).toMatchObject({ completed: 1 });
  expect(await getBalance(t.tenantId, account, 'USDTERC20')).toEqual({ amount: '36.9', pending: '0', locked: '0' });
  expect(await getBalance(t.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '150', pending: '0', locked: '0' });
});
