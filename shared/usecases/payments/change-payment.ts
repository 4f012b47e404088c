import { z } from 'zod';
import { config } from '../../config/config.js';
import { ConflictError, ValidationError } from '../../domain/errors.js';
import type { PaymentState } from '../../domain/payments.js';
import { isCancellable, isEditable, transition } from '../../domain/payments.js';
import { checkCallbackUrlSyntax } from '../../net/callback-url.js';
import { savePayment } from '../../store/payments.js';
import { requirePayment } from './read-payments.js';

/** `PATCH /payments/{id}/` (order_id, order_description, callback_url) and `POST /payments/{id}/cancel/`. */

export const UpdatePaymentBody = z
  .object({
    order_id: z.string().max(100).nullable().optional(),
    order_description: z.string().max(1000).nullable().optional(),
    callback_url: z.string().max(2048).nullable().optional(),
  })
  .strict()
  .meta({ id: 'UpdatePayment' });
export type UpdatePaymentBody = z.output<typeof UpdatePaymentBody>;

export async function updatePayment(tenantId: string, paymentId: string, body: UpdatePaymentBody, now: Date): Promise<PaymentState> {
  if (body.order_id === undefined && body.order_description === undefined && body.callback_url === undefined) {
    throw new ValidationError({ non_field_errors: ['Give at least one of order_id, order_description, callback_url.'] });
  }
  const callbackUrl =
    body.callback_url === undefined || body.callback_url === null
      ? body.callback_url
      : checkCallbackUrlSyntax(body.callback_url, { allowLoopback: config().ALLOW_LOOPBACK_CALLBACKS }).toString();
  const payment = await requirePayment(tenantId, paymentId);
  if (!isEditable(payment.status)) throw new ConflictError(`A ${payment.status} payment can no longer be changed.`, { status: payment.status });
  const next: PaymentState = {
    ...payment,
    ...(body.order_id !== undefined ? { orderId: body.order_id } : {}),
    ...(body.order_description !== undefined ? { orderDescription: body.order_description } : {}),
    ...(callbackUrl !== undefined ? { callbackUrl } : {}),
    updatedAt: now.toISOString(),
  };
  return savePayment(payment, next, [], now);
}

export async function cancelPayment(tenantId: string, paymentId: string, now: Date): Promise<PaymentState> {
  const payment = await requirePayment(tenantId, paymentId);
  if (!isCancellable(payment)) {
    const reason = payment.deposits.length > 0 ? 'a deposit was already received' : `it is ${payment.status}`;
    throw new ConflictError(`The payment cannot be cancelled: ${reason}. Only a waiting payment with no deposit can be cancelled.`, {
      status: payment.status,
      deposits: payment.deposits.length,
    });
  }
  const t = transition(payment, { kind: 'cancel' }, now);
  return savePayment(payment, t.payment, t.events, now);
}
