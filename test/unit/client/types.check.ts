import { createGatewayClient, verifyWebhook } from '@gateway/client';
import type { ErrorEnvelope, ListItem } from '@gateway/client';

/**
 * Compile-time checks of the client's types, run by `npm run typecheck` (this file is no test: it is never run).
 * Each `@ts-expect-error` line must fail to compile: if the types got loose, the directive itself is the error.
 */
export async function typeChecks(): Promise<void> {
  const gw = createGatewayClient({ baseUrl: 'http://127.0.0.1:3000', clientId: 'id', clientSecret: 'secret' });

  // A correct call compiles, and its answer and error are typed.
  const { data, error } = await gw.POST('/payments/', { body: { amount: '25', currency: 'USDTPOLYGON' } });
  const id: string | undefined = data?.transaction_id;
  const envelope: ErrorEnvelope | undefined = error;
  const code: string | undefined = error?.error.code;
  void [id, envelope, code];
  // @ts-expect-error the answer is typed (not any): a payment has no such field
  void data?.no_such_field;
  // @ts-expect-error the error is the envelope (not any)
  void error?.error.no_such_field;

  // @ts-expect-error a body field the operation does not have
  await gw.POST('/payments/', { body: { amount: '25', currency: 'USDTPOLYGON', colour: 'blue' } });
  // @ts-expect-error a body field of the wrong type (expiry_minutes is an integer)
  await gw.POST('/payments/', { body: { amount: '25', currency: 'USDTPOLYGON', expiry_minutes: 'soon' } });
  // @ts-expect-error a path the interface does not have
  await gw.GET('/paymentz/', {});
  // @ts-expect-error a method the path does not have
  await gw.DELETE('/payments/', {});
  // @ts-expect-error a query parameter of the wrong type
  await gw.GET('/payments/', { params: { query: { limit: 'many' } } });
  // @ts-expect-error the path parameter is required
  await gw.GET('/payments/{transaction_id}/', {});

  // Pagination yields the list's items, typed.
  for await (const payment of gw.paginate('/payments/', { query: { limit: 100 } })) {
    const item: ListItem<'/payments/'> = payment;
    const status: string = payment.status;
    void [item, status];
  }
  // @ts-expect-error a path that answers no list
  gw.paginate('/user/balances/');

  // A verified webhook is typed by its name.
  const event = await verifyWebhook('{}', {}, 'whsec_x');
  if (event.event === 'payment_status_update') {
    const amount: string = event.data.pay_amount;
    // @ts-expect-error envelope A has no id
    void event.id;
    void amount;
  }
  if (event.event === 'payment.completed') {
    const notification: string = event.id;
    void notification;
  }
}
