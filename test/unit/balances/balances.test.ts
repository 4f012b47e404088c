import type { CurrencyCode } from '../../../shared/domain/currencies.js';
import type { CustomerAccount } from '../../../shared/domain/ledger.js';
import { creditEntry, debitEntry, FEES, holdEntry, MAIN, releaseEntry, transferEntry } from '../../../shared/domain/ledger.js';
import { getBalanceHistory, BalanceHistoryQuery } from '../../../shared/usecases/balances/get-balance-history.js';
import { getBalances } from '../../../shared/usecases/balances/get-balances.js';
import { getPlatformFees } from '../../../shared/usecases/balances/get-platform-fees.js';
import { InMemoryLedger } from '../../support/fakes/ledger.js';

const T = 'tenant-1';
const now = new Date('2030-05-01T10:00:00Z');

async function credit(ledger: InMemoryLedger, account: CustomerAccount, currency: CurrencyCode, amount: string, field?: 'pending') {
  await ledger.post({ tenantId: T, entry: creditEntry({ account, currency, amount, type: 'adjustment', reason: 'test', ...(field ? { field } : {}) }), now });
}

describe('GET /user/balances/ (use case)', () => {
  it('shows the main account per currency at display precision, leaves out empty rows, and groups wallets as sub-accounts', async () => {
    const ledger = new InMemoryLedger();
    await credit(ledger, MAIN, 'USDTTRC20', '10.5');
    await credit(ledger, MAIN, 'USDTTRC20', '2', 'pending');
    await credit(ledger, MAIN, 'ETH', '1');
    await ledger.post({ tenantId: T, entry: debitEntry({ account: MAIN, currency: 'ETH', amount: '1', type: 'adjustment', reason: 'empty' }), now });
    await credit(ledger, 'wallet:w1', 'USDTTRC20', '3');
    await credit(ledger, 'wallet:w2', 'USDTTRC20', '4');
    await ledger.post({ tenantId: T, entry: holdEntry({ account: MAIN, currency: 'USDTTRC20', amount: '2.25' }), now });
    await ledger.post({ tenantId: T, entry: holdEntry({ account: 'wallet:w2', currency: 'USDTTRC20', amount: '1' }), now });
    await credit(ledger, MAIN, 'BTC', '1', undefined);
    await ledger.post({
      tenantId: 'someone-else',
      entry: creditEntry({ account: MAIN, currency: 'BTC', amount: '9', type: 'adjustment', reason: 'other tenant' }),
      now,
    });

    const view = await getBalances(
      { tenantId: T },
      {
        ledger,
        wallets: async () => [
          { walletId: 'w1', name: 'Shop' },
          { walletId: 'w2', name: 'Refunds' },
        ],
      },
    );
    expect(view.account).toEqual({
      USDTTRC20: { amount: '10.500000', pending_amount: '2.000000', available_balance: '8.250000', locked_amount: '2.250000' },
      BTC: { amount: '1.00000000', pending_amount: '0.00000000', available_balance: '1.00000000', locked_amount: '0.00000000' },
    });
    expect(view.sub_accounts.USDTTRC20).toEqual({
      total_amount: '7.000000',
      total_pending: '0.000000',
      accounts: [
        { account_name: 'Shop', account_id: 'w1', amount: '3.000000', pending_amount: '0.000000', available_balance: '3.000000', locked_amount: '0.000000' },
        { account_name: 'Refunds', account_id: 'w2', amount: '4.000000', pending_amount: '0.000000', available_balance: '3.000000', locked_amount: '1.000000' },
      ],
    });
    expect(view.statistics).toEqual({ currencies_count: 2, subaccounts_count: 2 });

    // A released hold is available again at once.
    await ledger.post({ tenantId: T, entry: releaseEntry({ account: MAIN, currency: 'USDTTRC20', amount: '2.25' }), now });
    const after = await getBalances({ tenantId: T }, { ledger });
    expect(after.account.USDTTRC20).toEqual({ amount: '10.500000', pending_amount: '2.000000', available_balance: '10.500000', locked_amount: '0.000000' });
  });

  it('answers an empty view for a tenant without money or wallets', async () => {
    expect(await getBalances({ tenantId: T }, { ledger: new InMemoryLedger() })).toEqual({
      account: {},
      sub_accounts: {},
      statistics: { currencies_count: 0, subaccounts_count: 0 },
    });
  });
});

describe('GET /user/balances/history/ and /user/fees/ (use cases)', () => {
  it('pages the main account journal newest first with counts, and sums the platform fees', async () => {
    const ledger = new InMemoryLedger();
    await credit(ledger, MAIN, 'USDTTRC20', '5');
    await credit(ledger, MAIN, 'ETH', '0.1');
    await ledger.post({ tenantId: T, entry: transferEntry({ from: MAIN, to: FEES, currency: 'USDTTRC20', amount: '0.25', type: 'fee' }), now });

    const all = await getBalanceHistory({ tenantId: T, query: BalanceHistoryQuery().parse({}) }, { ledger });
    expect(all).toMatchObject({ count: 3, limit: 50, offset: 0 });
    expect(all.results.map((r) => [r.type, r.currency, r.amount])).toEqual([
      ['fee', 'USDTTRC20', '-0.250000'],
      ['adjustment', 'ETH', '0.10000000'],
      ['adjustment', 'USDTTRC20', '5.000000'],
    ]);
    const usdt = await getBalanceHistory({ tenantId: T, query: BalanceHistoryQuery().parse({ currency: 'USDTTRC20', limit: '1' }) }, { ledger });
    expect(usdt).toMatchObject({ count: 2, limit: 1 });
    expect(usdt.results).toHaveLength(1);

    expect(await getPlatformFees({ ledger })).toEqual({ fees: { USDTTRC20: { platform_fees: '0.250000', network_fees: '0.000000' } }, currencies_count: 1 });
  });
});
