/** `wallet list|show`: a tenant's wallets (sub-accounts) with their balances, for support work. */
import { walletsRuntime } from '../../shared/runtime/wallets.js';
import { getWallet } from '../../shared/usecases/wallets/get-wallet.js';
import { listWallets } from '../../shared/usecases/wallets/list-wallets.js';
import type { WalletRecord } from '../../shared/usecases/wallets/present.js';
import { intOpt, json, need, str, UsageError } from './command.js';
import type { CommandGroup } from './command.js';

const line = (w: WalletRecord): string =>
  [
    `#${w.id} ${w.wallet_id} ${JSON.stringify(w.name)}${w.external_id ? ` external_id=${w.external_id}` : ''}`,
    ...w.balances.map((b) => `    ${b.currency}: ${b.amount} (available ${b.available_balance}, pending ${b.pending_amount}, locked ${b.locked_amount})`),
  ].join('\n');

export const walletCommands: CommandGroup = {
  list: {
    usage: 'wallet list --tenant TENANT_ID [--limit N] [--offset N] [--json]',
    summary: "List a tenant's wallets with their balances.",
    options: { tenant: str, limit: str, offset: str, json },
    run: (v) => listWallets(need(v, 'tenant'), { limit: intOpt(v, 'limit') ?? 100, offset: intOpt(v, 'offset') ?? 0 }, walletsRuntime()),
    text: (r) => {
      const page = r as { accounts: WalletRecord[]; total: number };
      return [`${page.total} wallet(s)`, ...page.accounts.map(line)].join('\n');
    },
  },
  show: {
    usage: 'wallet show --tenant TENANT_ID WALLET (its integer id or wallet_id) [--json]',
    summary: 'One wallet of a tenant with its balances.',
    options: { tenant: str, json },
    run: async (v, positionals) => {
      const wallet = positionals[0];
      if (!wallet) throw new UsageError('Name the wallet: its integer id or its wallet_id.');
      return getWallet(need(v, 'tenant'), wallet, walletsRuntime());
    },
    text: (r) => line(r as WalletRecord),
  },
};
