import { ConflictError } from '../../../shared/domain/errors.js';
import { walletAccount } from '../../../shared/domain/ledger.js';
import { WalletGoneError } from '../../../shared/domain/wallets.js';
import { ledgerRuntime } from '../../../shared/runtime/ledger.js';
import { walletsRuntime } from '../../../shared/runtime/wallets.js';
import { getBalance, listAllEntries } from '../../../shared/store/ledger.js';
import { creditAdjustment } from '../../../shared/usecases/ledger/credit-adjustment.js';
import { deleteWallet } from '../../../shared/usecases/wallets/delete-wallet.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { caller, tenantWithToken } from '../payments/support.js';
import { settle } from './support.js';

/**
 * A wallet is deleted only at zero, and nothing reaches it afterwards: the ledger takes no entry on a deleted
 * wallet, and a deletion that read zero balances is refused when an entry reached the wallet after it read it.
 */
let table: TestTable;

beforeAll(async () => {
  table = await startTestTable();
});

afterAll(async () => {
  await table?.stop();
});

async function merchant(name: string) {
  const t = await tenantWithToken(name);
  const call = caller((await import('../../../functions/wallets/handler.js')).handler, () => t.bearer);
  await creditAdjustment({ tenant_id: t.tenantId, currency: 'USDTERC20', amount: '50', reason: 'test funding' }, ledgerRuntime());
  const wallet = (await call('POST', '/wallets/', { body: { name: 'Seller' } })).body as { id: number; wallet_id: string };
  return { ...t, call, wallet };
}

it('refuses a deletion when a transfer completed into the wallet after the balances it checked were read', async () => {
  const m = await merchant('Deletion race');
  const accepted = await m.call('POST', '/wallets/transfer-to-user/', { body: { wallet_id: m.wallet.wallet_id, currency: 'USDTERC20', amount: '5' } });
  expect(accepted.status).toBe(202);
  const ports = walletsRuntime();
  // The deletion reads the wallet, then its balances (all zero); the transfer completes in between.
  const ledger = {
    ...ports.ledger,
    balances: async (...args: Parameters<typeof ports.ledger.balances>) => {
      const read = await ports.ledger.balances(...args);
      await settle(accepted.body.transfer_id as string);
      return read;
    },
  };
  await expect(deleteWallet(m.tenantId, String(m.wallet.id), { ...ports, ledger })).rejects.toThrow(ConflictError);
  expect((await m.call('GET', `/wallets/${m.wallet.id}/`)).body.balances).toEqual([
    { currency: 'USDTERC20', amount: '5.000000', pending_amount: '0.000000', available_balance: '5.000000', locked_amount: '0.000000' },
  ]);
  const refused = await m.call('DELETE', `/wallets/${m.wallet.id}/`);
  expect([refused.status, refused.body.error.code]).toEqual([409, 'invalid_state']);
});

it('takes no entry on a deleted wallet: the entry is refused and nothing is written', async () => {
  const m = await merchant('Deleted wallet');
  expect((await m.call('DELETE', `/wallets/${m.wallet.wallet_id}/`)).status).toBe(204);
  const before = (await listAllEntries(m.tenantId)).length;
  const account = walletAccount(m.wallet.wallet_id);
  await expect(
    ledgerRuntime().ledger.post({
      tenantId: m.tenantId,
      entry: { type: 'transfer', currency: 'USDTERC20', legs: [{ from: { account: 'main', field: 'amount' }, to: { account, field: 'amount' }, amount: '5' }] },
    }),
  ).rejects.toThrow(WalletGoneError);
  expect((await listAllEntries(m.tenantId)).length).toBe(before);
  expect(await getBalance(m.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '50', pending: '0', locked: '0' });
  expect(await getBalance(m.tenantId, account, 'USDTERC20')).toEqual({ amount: '0', pending: '0', locked: '0' });
});

it('deletes a wallet that was funded and emptied, and a rename in between does not hide an entry', async () => {
  const m = await merchant('Emptied wallet');
  const there = await m.call('POST', '/wallets/transfer-to-user/', { body: { wallet_id: m.wallet.id, currency: 'USDTERC20', amount: '7' } });
  await settle(there.body.transfer_id as string);
  const back = await m.call('POST', '/wallets/withdraw-to-master/', { body: { wallet_id: m.wallet.id, currency: 'USDTERC20', amount: '7' } });
  await settle(back.body.transfer_id as string);
  expect((await m.call('PATCH', `/wallets/${m.wallet.id}/`, { body: { name: 'Renamed' } })).status).toBe(200);
  expect((await m.call('DELETE', `/wallets/${m.wallet.id}/`)).status).toBe(204);
  expect(await getBalance(m.tenantId, 'main', 'USDTERC20')).toEqual({ amount: '50', pending: '0', locked: '0' });
});
