import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { paymentsRuntime } from '../../shared/runtime/payments.js';
import { withdrawalsRuntime } from '../../shared/runtime/withdrawals.js';
import { onSweepResult } from '../../shared/usecases/payments/settle.js';
import { onWithdrawalChainResult } from '../../shared/usecases/withdrawals/process.js';

/**
 * `sweeps` queue consumer: `chain_tx.confirmed` / `chain_tx.failed` events of sweep requests (forwarded by the
 * event router) complete the payment (crediting the merchant) or put it back to `confirmed` for another sweep;
 * those of withdrawal requests (purpose `withdrawal`) complete or fail the withdrawal (shared/usecases/withdrawals/process.ts).
 * Idempotent (the ledger entry id is the payment's); partial batch failures.
 */
const payments = paymentsRuntime();
const withdrawals = withdrawalsRuntime();

const Body = z.object({
  tenant_id: z.string().optional(),
  type: z.enum(['chain_tx.confirmed', 'chain_tx.failed']),
  payload: z.object({ reference: z.string(), purpose: z.string(), tx_hash: z.string().nullable() }),
});

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const body = Body.parse(JSON.parse(record.body));
      const ok = body.type === 'chain_tx.confirmed' && body.payload.tx_hash !== null;
      if (body.payload.purpose === 'withdrawal' && body.tenant_id !== undefined) {
        const result = ok ? { ok: true as const, txHash: body.payload.tx_hash as string } : { ok: false as const, reason: 'the chain transaction failed' };
        await onWithdrawalChainResult(body.tenant_id, body.payload.reference, result, withdrawals.clock.now(), withdrawals);
        continue;
      }
      if (body.payload.purpose !== 'sweep') continue;
      await onSweepResult(body.payload.reference, ok ? { ok: true, txHash: body.payload.tx_hash as string } : { ok: false }, payments, payments.clock.now());
    } catch (error) {
      console.error(JSON.stringify({ level: 'error', msg: 'sweep result failed', message_id: record.messageId, error: String(error) }));
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
