import { z } from 'zod';
import type { BalanceRow } from '../../domain/ledger.js';
import { MAIN, totalOf } from '../../domain/ledger.js';
import { add, isZero } from '../../domain/money.js';
import { parseInput } from '../ledger/input.js';
import { showAmount } from './format.js';
import type { BalancesPorts } from './ports.js';

/**
 * `GET /user/balances/` (2.7). `amount` is what the tenant owns in the account (available + held for
 * pending withdrawals), `pending_amount` what is still confirming; a wallet's `available_balance` is the
 * part free to use. Sub-accounts come from the wallets directory (none until wallets exist).
 */
export const GetBalancesInput = z.object({ tenantId: z.string().min(1) });

export type { WalletInfo } from './ports.js';
export type BalancesDeps = Pick<BalancesPorts, 'ledger' | 'wallets'>;

export interface BalancesView {
  readonly account: Record<string, { amount: string; pending_amount: string }>;
  readonly sub_accounts: Record<
    string,
    {
      total_amount: string;
      total_pending: string;
      accounts: { account_name: string; account_id: string; amount: string; pending_amount: string; available_balance: string }[];
    }
  >;
  readonly statistics: { readonly currencies_count: number; readonly subaccounts_count: number };
}

const isEmpty = (row: BalanceRow) => isZero(totalOf(row.balance)) && isZero(row.balance.pending);

export async function getBalances(raw: z.input<typeof GetBalancesInput>, deps: BalancesDeps): Promise<BalancesView> {
  const { tenantId } = parseInput(GetBalancesInput, raw);
  const [rows, wallets] = await Promise.all([deps.ledger.balances(tenantId), deps.wallets ? deps.wallets(tenantId) : Promise.resolve([])]);
  const account: BalancesView['account'] = {};
  for (const row of rows.filter((r) => r.account === MAIN && !isEmpty(r))) {
    account[row.currency] = { amount: showAmount(totalOf(row.balance), row.currency), pending_amount: showAmount(row.balance.pending, row.currency) };
  }
  const byWallet = new Map(wallets.map((w) => [`wallet:${w.walletId}`, w]));
  const subAccounts: BalancesView['sub_accounts'] = {};
  for (const row of rows) {
    const wallet = byWallet.get(row.account);
    if (!wallet) continue;
    const group = (subAccounts[row.currency] ??= { total_amount: '0', total_pending: '0', accounts: [] });
    group.total_amount = add(group.total_amount, totalOf(row.balance));
    group.total_pending = add(group.total_pending, row.balance.pending);
    group.accounts.push({
      account_name: wallet.name,
      account_id: wallet.walletId,
      amount: showAmount(totalOf(row.balance), row.currency),
      pending_amount: showAmount(row.balance.pending, row.currency),
      available_balance: showAmount(row.balance.amount, row.currency),
    });
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
