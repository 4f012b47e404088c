import { creditEntry, MAIN, walletAccount } from '../../../shared/domain/ledger.js';
import { walletRef } from '../../../shared/domain/wallets.js';
import { createTransfer } from '../../../shared/usecases/wallets/create-transfer.js';
import { createWallet } from '../../../shared/usecases/wallets/create-wallet.js';
import { deleteWallet } from '../../../shared/usecases/wallets/delete-wallet.js';
import { getWallet } from '../../../shared/usecases/wallets/get-wallet.js';
import { listWallets } from '../../../shared/usecases/wallets/list-wallets.js';
import { settleTransfer } from '../../../shared/usecases/wallets/settle-transfer.js';
import { transferHistory } from '../../../shared/usecases/wallets/transfer-history.js';
import { updateWallet } from '../../../shared/usecases/wallets/update-wallet.js';
import { lookupWalletBalances } from '../../../shared/usecases/wallets/wallet-balances.js';
import { fakeWallets } from '../../support/fakes/wallets.js';

const T = 't-1';
const fund = (f: ReturnType<typeof fakeWallets>, amount: string) =>
  f.ledger.post({ tenantId: T, entry: creditEntry({ account: MAIN, currency: 'USDTERC20', amount, type: 'adjustment', reason: 'test' }) });
const body = (wallet_id: string | number, amount: string) => ({ wallet_id: String(wallet_id), currency: 'USDTERC20', amount });

describe('wallet references', () => {
  it('are a positive integer id or a uuid, nothing else', () => {
    expect(walletRef('7')).toEqual({ kind: 'id', id: 7 });
    expect(walletRef('0F8FAD5B-D9CB-469F-A165-70867728950E')).toEqual({ kind: 'uuid', walletId: '0f8fad5b-d9cb-469f-a165-70867728950e' });
    expect(['0', '-1', '1.5', 'abc', '', 'wallet:1'].map(walletRef)).toEqual([null, null, null, null, null, null]);
  });
});

describe('wallet records', () => {
  it('creates with the next id, announces wallet.created, finds by id, uuid or external id, and 404s another tenant', async () => {
    const f = fakeWallets();
    const one = await createWallet(T, { name: ' Seller ', external_id: 'ext-1' }, f.deps);
    const two = await createWallet(T, { name: 'Other' }, f.deps);
    expect([one.id, one.name, one.external_id, two.id, two.external_id]).toEqual([1, 'Seller', 'ext-1', 2, null]);
    expect(f.wallets.events.map((e) => [e.type, e.payload.wallet_id])).toEqual([
      ['wallet.created', one.wallet_id],
      ['wallet.created', two.wallet_id],
    ]);
    expect((await getWallet(T, one.wallet_id, f.deps)).id).toBe(1);
    expect((await lookupWalletBalances(T, { external_id: 'ext-1' }, f.deps)).wallet_id).toBe(one.wallet_id);
    await expect(getWallet('t-2', '1', f.deps)).rejects.toMatchObject({ code: 'not_found' });
    await expect(getWallet(T, 'nope', f.deps)).rejects.toMatchObject({ code: 'not_found' });
    await expect(createWallet(T, { name: 'Dup', external_id: 'ext-1' }, f.deps)).rejects.toMatchObject({
      code: 'invalid_request',
      details: { external_id: expect.any(Array) },
    });
    await expect(createWallet(T, { name: '   ' }, f.deps)).rejects.toMatchObject({ code: 'invalid_request', details: { name: expect.any(Array) } });
    expect(await listWallets(T, { limit: 1, offset: 1 }, f.deps)).toMatchObject({ accounts: [{ id: 2 }], total: 2 });
    const renamed = await updateWallet(T, '2', { name: 'Renamed', external_id: 'ext-2' }, f.deps);
    expect([renamed.name, renamed.external_id]).toEqual(['Renamed', 'ext-2']);
  });

  it('refuses to delete a wallet holding funds (held ones included) and deletes it at zero', async () => {
    const f = fakeWallets();
    const w = await createWallet(T, { name: 'W' }, f.deps);
    await fund(f, '10');
    const t = await createTransfer({ tenantId: T, type: 'to_sub', body: body(w.id, '10') }, f.deps);
    await settleTransfer({ tenantId: T, transferId: t.id }, f.deps);
    const hold = await createTransfer({ tenantId: T, type: 'to_master', body: body(w.id, '10') }, f.deps);
    // Everything is held by the transfer back: still not deletable.
    expect(await f.ledger.balance(T, walletAccount(w.wallet_id), 'USDTERC20')).toEqual({ amount: '0', pending: '0', locked: '10' });
    await expect(deleteWallet(T, String(w.id), f.deps)).rejects.toMatchObject({ code: 'invalid_state', details: { currencies: ['USDTERC20'] } });
    await settleTransfer({ tenantId: T, transferId: hold.id }, f.deps);
    await deleteWallet(T, String(w.id), f.deps);
    await expect(getWallet(T, String(w.id), f.deps)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('wallet transfers', () => {
  it('holds at acceptance, settles once, and refuses what the source cannot cover with nothing written', async () => {
    const f = fakeWallets();
    const w = await createWallet(T, { name: 'W' }, f.deps);
    await fund(f, '5');
    await expect(createTransfer({ tenantId: T, type: 'to_sub', body: body(w.wallet_id, '6') }, f.deps)).rejects.toMatchObject({
      code: 'insufficient_balance',
      details: { available: '5', requested: '6', currency: 'USDTERC20' },
    });
    expect(f.transfers.states.size).toBe(0);
    await expect(createTransfer({ tenantId: T, type: 'to_master', body: body(w.id, '1') }, f.deps)).rejects.toMatchObject({ code: 'insufficient_balance' });

    const t = await createTransfer({ tenantId: T, type: 'to_sub', body: body(w.id, '5') }, f.deps);
    expect(await f.ledger.balance(T, MAIN, 'USDTERC20')).toEqual({ amount: '0', pending: '0', locked: '5' });
    const settled = await settleTransfer({ tenantId: T, transferId: t.id }, f.deps);
    expect(settled?.status).toBe('completed');
    // A second delivery changes nothing.
    expect((await settleTransfer({ tenantId: T, transferId: t.id }, f.deps))?.version).toBe(settled?.version);
    expect(await f.ledger.balance(T, MAIN, 'USDTERC20')).toEqual({ amount: '0', pending: '0', locked: '0' });
    expect(await f.ledger.balance(T, walletAccount(w.wallet_id), 'USDTERC20')).toEqual({ amount: '5', pending: '0', locked: '0' });
    expect(f.transfers.events.map((e) => [e.type, e.payload.status ?? e.payload.cause])).toEqual([
      ['wallet_transfer_status_update', 'accepted'],
      ['wallet_transfer.accepted', 'accepted'],
      ['wallet_transfer_status_update', 'completed'],
    ]);
    expect((await transferHistory(T, { limit: 10, offset: 0, status: 'completed' }, f.deps)).transfers.map((x) => x.transfer_id)).toEqual([t.id]);
  });

  it('fails a transfer whose wallet is gone and returns the hold to the source', async () => {
    const f = fakeWallets();
    const w = await createWallet(T, { name: 'W' }, f.deps);
    await fund(f, '3');
    const t = await createTransfer({ tenantId: T, type: 'to_sub', body: body(w.id, '3') }, f.deps);
    await deleteWallet(T, w.wallet_id, f.deps);
    expect((await settleTransfer({ tenantId: T, transferId: t.id }, f.deps))?.status).toBe('failed');
    expect(await f.ledger.balance(T, MAIN, 'USDTERC20')).toEqual({ amount: '3', pending: '0', locked: '0' });
  });

  it('fails a transfer whose wallet is deleted between the read and the settlement', async () => {
    const f = fakeWallets();
    const w = await createWallet(T, { name: 'W' }, f.deps);
    await fund(f, '3');
    const t = await createTransfer({ tenantId: T, type: 'to_sub', body: body(w.id, '3') }, f.deps);
    const stale = await f.wallets.get(T, { kind: 'id', id: w.id });
    await deleteWallet(T, w.wallet_id, f.deps);
    // The settlement still reads the wallet as it was before the deletion.
    const staleRead = { ...f.deps, wallets: Object.assign(Object.create(f.wallets) as typeof f.wallets, { get: async () => stale }) };
    expect((await settleTransfer({ tenantId: T, transferId: t.id }, staleRead))?.status).toBe('failed');
    expect(await f.ledger.balance(T, MAIN, 'USDTERC20')).toEqual({ amount: '3', pending: '0', locked: '0' });
    expect(await f.ledger.balance(T, walletAccount(w.wallet_id), 'USDTERC20')).toEqual({ amount: '0', pending: '0', locked: '0' });
  });

  it('refuses an unknown currency, a bad amount and a non-HTTPS callback URL as invalid_request', async () => {
    const f = fakeWallets();
    const w = await createWallet(T, { name: 'W' }, f.deps);
    for (const bad of [
      { ...body(w.id, '1'), currency: 'NOPE' },
      { ...body(w.id, '1.1234567') },
      { ...body(w.id, '1'), callback_url: 'http://example.com/hook' },
    ]) {
      await expect(createTransfer({ tenantId: T, type: 'to_sub', body: bad }, f.deps)).rejects.toMatchObject({ status: 400 });
    }
  });
});
