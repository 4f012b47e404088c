import type { CustodyAccountState, CustodyBlockchain } from '../../domain/custody.js';
import { CUSTODY_BLOCKCHAINS, CUSTODY_TOKEN, custodyCurrency, custodyLedgerAccount } from '../../domain/custody.js';
import { findCurrency } from '../../domain/currencies.js';
import type { Balance } from '../../domain/ledger.js';
import { totalOf, ZERO_BALANCE } from '../../domain/ledger.js';
import type { Decimal } from '../../domain/money.js';
import { add, jsonNumber } from '../../domain/money.js';
import { usdValue } from '../../domain/rates.js';
import { currentRates, usdRatesOf } from '../rates/current-rates.js';
import { findAccount } from './find-account.js';
import type { CustodyPorts } from './ports.js';
import { custodyAccountRecord } from './present.js';

interface ChainBalance {
  readonly blockchain: CustodyBlockchain;
  readonly balance: Balance;
  readonly usd: Decimal;
  readonly lastTransactionAt: string | null;
}

/** Every custody chain's balance of an account, zero rows included, valued in USD at the current rates. */
async function chainBalances(account: CustodyAccountState, deps: Pick<CustodyPorts, 'ledger' | 'rates' | 'clock'>): Promise<ChainBalance[]> {
  const [rows, stored] = await Promise.all([deps.ledger.balances(account.tenantId, custodyLedgerAccount(account)), currentRates(deps.rates, deps.clock.now())]);
  const rates = usdRatesOf(stored);
  return CUSTODY_BLOCKCHAINS.map((blockchain) => {
    const code = custodyCurrency(blockchain);
    const row = code === null ? undefined : rows.find((r) => r.currency === code);
    const balance = row?.balance ?? ZERO_BALANCE;
    const currency = code === null ? undefined : findCurrency(code);
    const usd = currency ? (usdValue(currency, totalOf(balance), rates, 'half-up') ?? '0') : '0';
    return { blockchain, balance, usd, lastTransactionAt: row?.updatedAt ?? null };
  });
}

const totalUsd = (chains: readonly ChainBalance[]) => jsonNumber(chains.reduce((acc, c) => add(acc, c.usd), '0'));

/** `GET /custody/accounts/:accountId/balances` (spec 2.10's balance view; numbers, as the spec says). */
export async function accountBalances(tenantId: string, accountId: string, deps: Pick<CustodyPorts, 'accounts' | 'ledger' | 'rates' | 'clock'>) {
  const account = await findAccount(tenantId, accountId, deps);
  const chains = await chainBalances(account, deps);
  return {
    account_id: account.accountId,
    last_updated: deps.clock.now().toISOString(),
    total_usd_value: totalUsd(chains),
    balances: chains.map((c) => ({
      blockchain: c.blockchain,
      token: CUSTODY_TOKEN,
      balance: jsonNumber(totalOf(c.balance)),
      usd_value: jsonNumber(c.usd),
      available: jsonNumber(c.balance.amount),
      locked: jsonNumber(c.balance.locked),
      last_transaction_at: c.lastTransactionAt,
    })),
  };
}

/** `GET /custody/accounts/:accountId`: the account with `updated_at` and its balances summary. */
export async function accountDetail(tenantId: string, accountId: string, deps: Pick<CustodyPorts, 'accounts' | 'ledger' | 'rates' | 'clock'>) {
  const account = await findAccount(tenantId, accountId, deps);
  const chains = await chainBalances(account, deps);
  return {
    ...custodyAccountRecord(account),
    updated_at: account.updatedAt,
    balances_summary: {
      total_usd: totalUsd(chains),
      blockchains: chains.map((c) => ({
        blockchain: c.blockchain,
        token: CUSTODY_TOKEN,
        balance: jsonNumber(totalOf(c.balance)),
        usd_value: jsonNumber(c.usd),
      })),
    },
  };
}
