/** `balance credit|debit`: operator adjustments, journalled with a reason (idempotent with --id). */
import type { AdjustmentResult } from '../../shared/usecases/ledger/adjustment.js';
import { creditAdjustment } from '../../shared/usecases/ledger/credit-adjustment.js';
import { debitAdjustment } from '../../shared/usecases/ledger/debit-adjustment.js';
import { ledgerRuntime } from '../../shared/runtime/ledger.js';
import { json, str } from './command.js';
import type { Command, CommandGroup, Values } from './command.js';

const adjustment = (direction: 'credit' | 'debit'): Command => ({
  usage: `balance ${direction} --tenant TENANT_ID --currency CODE --amount DECIMAL --reason TEXT [--account main|wallet:<id>] [--id ADJUSTMENT_ID] [--json]`,
  summary:
    direction === 'credit'
      ? 'Add funds to a tenant account (for example to fund a tenant on the local stack).'
      : 'Remove funds from a tenant account; never below zero.',
  options: { tenant: str, currency: str, amount: str, reason: str, account: str, id: str, json },
  run: (v: Values) =>
    (direction === 'credit' ? creditAdjustment : debitAdjustment)(
      {
        tenant_id: String(v.tenant ?? ''),
        currency: String(v.currency ?? ''),
        amount: String(v.amount ?? ''),
        reason: String(v.reason ?? ''),
        account: typeof v.account === 'string' ? v.account : undefined,
        adjustment_id: typeof v.id === 'string' ? v.id : undefined,
        operator: process.env.USER ?? 'operator',
      },
      ledgerRuntime(),
    ),
  text: (r) => {
    const a = r as AdjustmentResult;
    return `${a.direction} ${a.amount} ${a.currency} on ${a.account}: balance ${a.balance.amount} (entry ${a.entry_id})`;
  },
});

export const balanceCommands: CommandGroup = { credit: adjustment('credit'), debit: adjustment('debit') };
