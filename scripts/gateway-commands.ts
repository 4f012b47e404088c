import { creditAdjustment } from '../shared/usecases/ledger/credit-adjustment.js';
import { debitAdjustment } from '../shared/usecases/ledger/debit-adjustment.js';
import type { AdjustmentResult } from '../shared/usecases/ledger/adjustment.js';
import type { Command, Values } from './gateway.js';

const str = { type: 'string' } as const;

/** `balance credit|debit`: operator adjustments, journalled with a reason (idempotent with --id). */
const adjustment = (direction: 'credit' | 'debit'): Command => ({
  usage: `balance ${direction} --tenant TENANT_ID --currency CODE --amount DECIMAL --reason TEXT [--account main|wallet:<id>] [--id ADJUSTMENT_ID] [--json]`,
  summary: direction === 'credit' ? 'Add funds to a tenant account (for example to fund a tenant on the local stack).' : 'Remove funds from a tenant account; never below zero.',
  options: { tenant: str, currency: str, amount: str, reason: str, account: str, id: str, json: { type: 'boolean', default: false } },
  run: (v: Values) =>
    (direction === 'credit' ? creditAdjustment : debitAdjustment)({
      tenant_id: String(v.tenant ?? ''),
      currency: String(v.currency ?? ''),
      amount: String(v.amount ?? ''),
      reason: String(v.reason ?? ''),
      account: typeof v.account === 'string' ? v.account : undefined,
      adjustment_id: typeof v.id === 'string' ? v.id : undefined,
      operator: process.env.USER ?? 'operator',
    }),
  text: (r) => {
    const a = r as AdjustmentResult;
    return `${a.direction} ${a.amount} ${a.currency} on ${a.account}: balance ${a.balance.amount} (entry ${a.entry_id})`;
  },
});

/**
 * Command groups contributed by later capabilities (balances, dev tools). Each group is a map of command
 * name to Command; `scripts/gateway.ts` merges them into its table.
 */
export const extraCommands: Record<string, Record<string, Command>> = {
  balance: { credit: adjustment('credit'), debit: adjustment('debit') },
  dev: {
    pay: {
      usage: 'dev pay <transaction_id> [--amount X] [--mine N]',
      summary: 'Pay a payment on the local chain from a funded test account (default: the amount still due), then mine N blocks (default 2) for confirmations.',
      options: { amount: { type: 'string' }, mine: { type: 'string', default: '2' }, json: { type: 'boolean', default: false } },
      run: async (values, positionals) => {
        const id = positionals[0];
        if (!id) throw new Error('transaction_id is required');
        const { readFileSync } = await import('node:fs');
        const { resolve } = await import('node:path');
        const stack = JSON.parse(readFileSync(resolve(process.env.GATEWAY_LOCAL_DIR ?? '.local', 'stack.json'), 'utf8')) as {
          rpcUrls: Record<string, string>;
          contracts: { tokens?: Record<string, string> };
        };
        const { devPay } = await import('../infra/local/dev/dev-pay.js');
        const amount = typeof values.amount === 'string' ? values.amount : undefined;
        const mine = typeof values.mine === 'string' && /^\d+$/.test(values.mine) ? Number(values.mine) : 2;
        return devPay(id, amount, { rpcUrl: stack.rpcUrls.ETH ?? '', ...(stack.rpcUrls.TRX ? { tronUrl: stack.rpcUrls.TRX } : {}), tokens: stack.contracts.tokens ?? {} }, { mineBlocks: mine });
      },
      text: (r) => {
        const p = r as { amount: string; currency: string; address: string; transaction_hash: string };
        return `paid ${p.amount} ${p.currency} to ${p.address}: ${p.transaction_hash}`;
      },
    },
  },
};
