import * as z from 'zod';
import type { RefundState } from '../../domain/refunds.js';
import { claimUrl } from '../../domain/refunds.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

/** A refund as the API shows it (issue 27's record); amounts are decimal strings in the payment's currency. */
export const RefundRecord = lazySchema(() =>
  z
    .object({
      id: z.string().uuid(),
      payment_id: z.string().uuid(),
      status: z.enum(['awaiting_address', 'pending', 'processing', 'completed', 'failed', 'cancelled', 'expired']),
      currency: z.string(),
      amount: z.string().describe('What the merchant gives back: held from its balance at once, charged at completion'),
      network_fee: z.string().describe('The estimated network fee until completion, then what the chain took; deducted from what is sent'),
      amount_sent: z.string().nullable().describe('amount - network_fee, once paid'),
      address: z.string().nullable(),
      claim_url: z.string().nullable().describe('While awaiting_address: the public page where the customer enters the address'),
      claim_expires_at: z.string().nullable(),
      transaction_hash: z.string().nullable(),
      reason: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'Refund' }),
);

export const Refundable = lazySchema(() =>
  z
    .object({
      currency: z.string(),
      received: z.string().describe('What reached the payment (its deposits that count)'),
      refunded: z.string().describe('Its refunds accepted and not released'),
      refundable: z.string().describe('What the merchant was credited for it, less what is refunded'),
      estimated_network_fee: z.string().describe('Deducted from what a refund sends'),
      minimum: z.string().describe('The smallest refund: the network minimum of what is sent plus the network fee'),
    })
    .meta({ id: 'Refundable' }),
);

export function refundRecord(r: RefundState, origin: string): LazyOutput<typeof RefundRecord> {
  return {
    id: r.id,
    payment_id: r.paymentId,
    status: r.status,
    currency: r.currency,
    amount: r.amount,
    network_fee: r.networkFee,
    amount_sent: r.amountSent,
    address: r.address,
    claim_url: r.status === 'awaiting_address' && r.claimToken !== null ? claimUrl(origin, r.claimToken) : null,
    claim_expires_at: r.claimExpiresAt,
    transaction_hash: r.transactionHash,
    reason: r.reason,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
