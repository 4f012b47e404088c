import type { AmountSpelling } from '../../domain/amounts.js';
import { amountText } from '../../domain/amounts.js';
import type { TransactionRecord } from '../../domain/transactions.js';
import { isWithdrawalMovement } from '../../domain/transactions.js';

/**
 * A history record as the list and the exports show it: its amounts spelled as the movement's own record spells
 * them (shared/domain/amounts.ts), so a withdrawal reads `"5.00000000"` in its record, its webhooks, the history and
 * an export, and a wallet transfer `"5.000000"` (USDT) in its record, its webhook and the history. `amount_usd` is
 * the USD value as fixed at creation, as the payment's own record shows it.
 */
export function presentTransaction(r: TransactionRecord): TransactionRecord {
  const spelling: AmountSpelling = isWithdrawalMovement(r) ? 'withdrawal' : 'currency';
  return {
    ...r,
    amount: amountText(r.amount, r.currency, spelling),
    fee: amountText(r.fee, r.currency, spelling),
    net_amount: amountText(r.net_amount, r.currency, spelling),
  };
}
