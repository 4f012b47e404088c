import type { Deposit } from '../domain/payments.js';
import { tableName } from './client.js';
import { keys } from './keys.js';
import type { TransactItem } from './transact.js';

/**
 * A deposit is recorded once: its item (`DEPOSIT#<network>:<tx>:<log index>`) is put with
 * `attribute_not_exists` in the same transaction that adds it to its payment, so a log seen twice (two scanner
 * runs, a rescanned range) changes nothing the second time. A reorg deletes it, so the re-mined log is
 * recorded again.
 */
export function depositPutItem(tenantId: string, paymentId: string, deposit: Deposit): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.deposit(deposit.id),
        type: 'deposit',
        tenant_id: tenantId,
        payment_id: paymentId,
        deposit_id: deposit.id,
        currency: deposit.currency,
        amount: deposit.amount,
        tx_hash: deposit.txHash,
        block_number: deposit.blockNumber,
        block_hash: deposit.blockHash,
        detected_at: deposit.detectedAt,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export function depositDeleteItem(depositId: string): TransactItem {
  return { Delete: { TableName: tableName(), Key: keys.deposit(depositId) } };
}
