import * as z from 'zod';
import type { CurrencyCode } from '../../domain/currencies.js';
import { CURRENCIES, isCurrencyCode } from '../../domain/currencies.js';
import { NotFoundError } from '../../domain/errors.js';
import type { CustomerAccount, JournalEntry } from '../../domain/ledger.js';
import { creditEntry, debitEntry, isCustomerAccount, totalOf } from '../../domain/ledger.js';
import { parseDecimal } from '../../domain/money.js';
import { decimalInput } from '../schema.js';
import { parseInput } from './input.js';
import type { LedgerPorts } from './ports.js';

/**
 * Operator adjustments (`balance credit` / `balance debit` in the CLI): money entering or leaving a
 * tenant's account outside any payment or withdrawal, journalled as type `adjustment` with a reason and
 * the operator's name. A debit never takes a balance below zero (InsufficientBalanceError). Passing
 * `adjustment_id` makes the command idempotent: the same id is posted once (DuplicateEntryError after).
 */
export const AdjustmentInput = z.object({
  tenant_id: z.string().trim().min(1),
  account: z
    .string()
    .default('main')
    .refine((a) => isCustomerAccount(a), 'Must be main, wallet:<id> or custody:<id>.'),
  currency: z.string().refine((c) => isCurrencyCode(c), 'Unknown currency code.'),
  amount: decimalInput(),
  reason: z.string().trim().min(3, 'Give a reason (at least 3 characters).').max(500),
  operator: z.string().trim().min(1).max(100).default('operator'),
  adjustment_id: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'Letters, digits and _ . : - only.')
    .optional(),
});
export type AdjustmentInput = z.input<typeof AdjustmentInput>;

export type AdjustmentDeps = Pick<LedgerPorts, 'ledger' | 'tenants' | 'clock'>;

export interface AdjustmentResult {
  readonly entry_id: string;
  readonly tenant_id: string;
  readonly account: string;
  readonly currency: string;
  readonly direction: 'credit' | 'debit';
  readonly amount: string;
  readonly reason: string;
  readonly created_at: string;
  /** The account's balance after the adjustment. */
  readonly balance: { readonly amount: string; readonly pending: string; readonly locked: string; readonly total: string };
}

export async function adjust(direction: 'credit' | 'debit', raw: AdjustmentInput, deps: AdjustmentDeps): Promise<AdjustmentResult> {
  const input = parseInput(AdjustmentInput, raw);
  const currency = input.currency as CurrencyCode;
  const amount = parseDecimal(input.amount, { field: 'amount', maxScale: CURRENCIES[currency].decimals, allowZero: false });
  const tenant = await deps.tenants.get(input.tenant_id);
  if (!tenant) throw new NotFoundError(`Tenant ${input.tenant_id} not found.`, { tenant_id: input.tenant_id });
  const account = input.account as CustomerAccount;
  const common = {
    account,
    currency,
    amount,
    type: 'adjustment' as const,
    reason: input.reason,
    reference: { kind: 'operator', id: input.operator },
    metadata: { operator: input.operator, direction },
  };
  const entry: JournalEntry = await deps.ledger.post({
    tenantId: tenant.id,
    entry: direction === 'credit' ? creditEntry(common) : debitEntry(common),
    ...(input.adjustment_id ? { entryId: `adjustment:${input.adjustment_id}` } : {}),
    now: deps.clock.now(),
  });
  const balance = await deps.ledger.balance(tenant.id, account, currency);
  return {
    entry_id: entry.id,
    tenant_id: tenant.id,
    account,
    currency,
    direction,
    amount,
    reason: input.reason,
    created_at: entry.createdAt,
    balance: { amount: balance.amount, pending: balance.pending, locked: balance.locked, total: totalOf(balance) },
  };
}
