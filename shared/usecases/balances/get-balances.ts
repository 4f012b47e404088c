import * as z from 'zod';
import type { Balance, BalanceRow } from '../../domain/ledger.js';
import { MAIN, totalOf } from '../../domain/ledger.js';
import { add, isZero } from '../../domain/money.js';
import { parseInput } from '../ledger/input.js';
import { showAmount } from './format.js';
import type { BalancesPorts } from './ports.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/**
 * `GET /user/balances/` (2.7). Every entry, of the main account and of each wallet, shows the same four figures:
 * `amount` what the tenant owns in the account (available plus held), `pending_amount` what is still confirming,
 * `available_balance` the part free to use now, and `locked_amount` the part held for pending withdrawals and
 * transfers. A cancelled or failed withdrawal releases its hold, so the next read shows it available again.
 * Sub-accounts come from the wallets directory (none until wallets exist).
 */
export const GetBalancesInput = lazySchema(() => z.object({ tenantId: z.string().min(1) }));

export const BalanceEntry = lazySchema(() =>
  z.object({
    amount: z.string().describe('Owned: available plus locked'),
    pending_amount: z.string().describe('Incoming, not yet confirmed'),
    available_balance: z.string().describe('Usable now'),
    locked_amount: z.string().describe('Held for pending withdrawals and transfers'),
  }),
);
type BalanceEntry = LazyOutput<typeof BalanceEntry>;

export const BalancesView = lazySchema(() =>
  z
    .object({
      account: z.record(z.string(), BalanceEntry()),
      sub_accounts: z.record(
        z.string(),
        z.object({
          total_amount: z.string(),
          total_pending: z.string(),
          accounts: z.array(BalanceEntry().extend({ account_name: z.string(), account_id: z.string() })),
        }),
      ),
      statistics: z.object({ currencies_count: z.number().int(), subaccounts_count: z.number().int() }),
    })
    .meta({ id: 'Balances' }),
);
export type BalancesView = LazyOutput<typeof BalancesView>;

export type { WalletInfo } from './ports.js';
export type BalancesDeps = Pick<BalancesPorts, 'ledger' | 'wallets'>;

const isEmpty = (row: BalanceRow) => isZero(totalOf(row.balance)) && isZero(row.balance.pending);

/** One account's balance in one currency as every balance view shows it. */
export function balanceEntry(balance: Balance, currency: string): BalanceEntry {
  return {
    amount: showAmount(totalOf(balance), currency),
    pending_amount: showAmount(balance.pending, currency),
    available_balance: showAmount(balance.amount, currency),
    locked_amount: showAmount(balance.locked, currency),
  };
}

export async function getBalances(raw: z.input<ReturnType<typeof GetBalancesInput>>, deps: BalancesDeps): Promise<BalancesView> {
  const { tenantId } = parseInput(GetBalancesInput(), raw);
  const [rows, wallets] = await Promise.all([deps.ledger.balances(tenantId), deps.wallets ? deps.wallets(tenantId) : Promise.resolve([])]);
  const account: BalancesView['account'] = {};
  for (const row of rows.filter((r) => r.account === MAIN && !isEmpty(r))) account[row.currency] = balanceEntry(row.balance, row.currency);
  const byWallet = new Map(wallets.map((w) => [`wallet:${w.walletId}`, w]));
  const subAccounts: BalancesView['sub_accounts'] = {};
  for (const row of rows) {
    const wallet = byWallet.get(row.account);
    if (!wallet) continue;
    const group = (subAccounts[row.currency] ??= { total_amount: '0', total_pending: '0', accounts: [] });
    group.total_amount = add(group.total_amount, totalOf(row.balance));
    group.total_pending = add(group.total_pending, row.balance.pending);
    group.accounts.push({ account_name: wallet.name, account_id: wallet.walletId, ...balanceEntry(row.balance, row.currency) });
  }
  for (const [currency, group] of Object.entries(subAccounts)) {
    group.total_amount = showAmount(group.total_amount, currency);
    group.total_pending = showAmount(group.total_pending, currency);
  }
  return {
    account,
    sub_accounts: subAccounts,
    statistics: { currencies_count: Object.keys(account).length, subaccounts_count: wallets.length },
  };
}
