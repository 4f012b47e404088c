/** `dev ...`: helpers for the local stack only (they read `.local/stack.json`). */
import { json } from './command.js';
import type { CommandGroup } from './command.js';

export const devCommands: CommandGroup = {
  pay: {
    usage: 'dev pay <transaction_id> [--amount X] [--mine N]',
    summary: 'Pay a payment on the local chain from a funded test account (default: the amount still due), then mine N blocks (default 2) for confirmations.',
    options: { amount: { type: 'string' }, mine: { type: 'string', default: '2' }, json },
    run: async (values, positionals) => {
      const id = positionals[0];
      if (!id) throw new Error('transaction_id is required');
      const { readFileSync } = await import('node:fs');
      const { resolve } = await import('node:path');
      const stack = JSON.parse(readFileSync(resolve(process.env.GATEWAY_LOCAL_DIR ?? '.local', 'stack.json'), 'utf8')) as {
        rpcUrls: Record<string, string>;
        contracts: { tokens?: Record<string, string> };
      };
      const { devPay } = await import('../../infra/local/dev/dev-pay.js');
      const amount = typeof values.amount === 'string' ? values.amount : undefined;
      const mine = typeof values.mine === 'string' && /^\d+$/.test(values.mine) ? Number(values.mine) : 2;
      return devPay(
        id,
        amount,
        { rpcUrl: stack.rpcUrls.ETH ?? '', ...(stack.rpcUrls.TRX ? { tronUrl: stack.rpcUrls.TRX } : {}), tokens: stack.contracts.tokens ?? {} },
        { mineBlocks: mine },
      );
    },
    text: (r) => {
      const p = r as { amount: string; currency: string; address: string; transaction_hash: string };
      return `paid ${p.amount} ${p.currency} to ${p.address}: ${p.transaction_hash}`;
    },
  },
};
