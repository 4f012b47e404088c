import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Balance } from '../domain/ledger.js';
import { normalize } from '../domain/money.js';
import type { WalletBalanceChange } from '../domain/wallets.js';
import { WALLET_BALANCE_SK_PREFIX } from './keys.js';
import { decimalText } from './values.js';

const WALLET_ACCOUNT = /^wallet:(.+)$/;

const balanceOf = (fields: Record<string, unknown>): Balance => ({
  amount: normalize(decimalText(fields.amount ?? '0')),
  pending: normalize(decimalText(fields.pending ?? '0')),
  locked: normalize(decimalText(fields.locked ?? '0')),
});

/**
 * A wallet balance row's stream image as the change it records: the row after the change (its amounts) and the
 * entry that made it (`last_change`, written by the ledger in the same update). Null for any other item.
 */
export function walletBalanceChangeFromImage(image: Record<string, AttributeValue>): WalletBalanceChange | null {
  const item = unmarshall(image, { wrapNumbers: true });
  if (typeof item.sk !== 'string' || !item.sk.startsWith(WALLET_BALANCE_SK_PREFIX)) return null;
  const walletId = WALLET_ACCOUNT.exec(String(item.account))?.[1];
  const last = item.last_change as Record<string, unknown> | undefined;
  if (walletId === undefined || typeof item.tenant_id !== 'string' || typeof item.currency !== 'string' || !last) {
    throw new TypeError(`Not a wallet balance row with its last change: ${item.sk}`);
  }
  const kind = last.reference_kind;
  const id = last.reference_id;
  return {
    tenantId: item.tenant_id,
    walletId,
    currency: item.currency,
    balance: balanceOf(item),
    change: balanceOf(last),
    entryId: String(last.entry_id),
    entryType: String(last.entry_type),
    reference: typeof kind === 'string' && typeof id === 'string' ? { kind, id } : null,
    at: String(item.updated_at),
  };
}
