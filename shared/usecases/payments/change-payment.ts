import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import { ValidationError } from '../../domain/errors.js';
import { WORDING } from '../../domain/errors-wording.js';
import type { PaymentState } from '../../domain/payments.js';
import { transition } from '../../domain/payments.js';
import { checkCallbackUrlSyntax } from '../../net/callback-url.js';
import type { PaymentsDeps } from './ports.js';
import { requirePayment } from './read-payments.js';

/** `PATCH /payments/{id}/` (order_id, order_description or description, callback_url) and `POST /payments/{id}/cancel/`. */

export const UpdatePaymentBody = lazySchema(() =>
  z
    .object({
      order_id: z.string().max(100).nullable().optional(),
      order_description: z.string().max(1000).nullable().optional(),
      /** The spec's name of `order_description`; either may be given (both only when equal). */
      description: z.string().max(1000).nullable().optional(),
      callback_url: z.string().max(2048).nullable().optional(),
    })
    .strict()
    .superRefine((b, ctx) => {
      if (b.description !== undefined && b.order_description !== undefined && b.description !== b.order_description) {
        ctx.addIssue({ code: 'custom', path: ['description'], message: WORDING.contradicts('order_description', 'give one of them.') });
      }
    })
    .transform(({ description, ...rest }) =>
      description === undefined || rest.order_description !== undefined ? rest : { ...rest, order_description: description },
    )
    .meta({ id: 'UpdatePayment' }),
);
export type UpdatePaymentBody = z.output<ReturnType<typeof UpdatePaymentBody>>;

type ChangeDeps = Pick<PaymentsDeps, 'payments' | 'settings'>;

export async function updatePayment(tenantId: string, paymentId: string, body: UpdatePaymentBody, now: Date, deps: ChangeDeps): Promise<PaymentState> {
  if (body.order_id === undefined && body.order_description === undefined && body.callback_url === undefined) {
    throw new ValidationError({ non_field_errors: ['Give at least one of order_id, order_description, callback_url.'] });
  }
  const callbackUrl =
    body.callback_url === undefined || body.callback_url === null
      ? body.callback_url
      : checkCallbackUrlSyntax(body.callback_url, { allowLoopback: deps.settings.allowLoopbackCallbacks }).toString();
  const payment = await requirePayment(tenantId, paymentId, deps);
  const change = transition(payment, { kind: 'edit', changes: { orderId: body.order_id, orderDescription: body.order_description, callbackUrl } }, now);
  return deps.payments.save(payment, change, now);
}

/** Cancels a waiting payment with no deposit (409 `invalid_state` otherwise, from the payment's own guard). */
export async function cancelPayment(tenantId: string, paymentId: string, now: Date, deps: Pick<PaymentsDeps, 'payments'>): Promise<PaymentState> {
  const payment = await requirePayment(tenantId, paymentId, deps);
  return deps.payments.save(payment, transition(payment, { kind: 'cancel' }, now), now);
}
