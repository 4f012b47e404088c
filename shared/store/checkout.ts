import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { CheckoutPage, CheckoutReader } from '../usecases/checkout/ports.js';
import { batchGet, db, tableName } from './client.js';
import { keys, type Key } from './keys.js';
import { PAYMENT_STATE_ATTRIBUTES, paymentFromItem } from './payment-item.js';

/**
 * The checkout Lambda's reads, and nothing else: the checkout item names the tenant and the payment (it never
 * changes, so each Lambda keeps what it resolved), then one BatchGetItem reads the payment and the merchant's
 * name. Eventually consistent: the page polls, and a status a second old is shown a second later.
 */
const MAX_REMEMBERED = 10_000;
const resolved = new Map<string, { readonly tenantId: string; readonly paymentId: string }>();

async function resolve(checkoutId: string): Promise<{ tenantId: string; paymentId: string } | null> {
  const known = resolved.get(checkoutId);
  if (known) return known;
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.checkout(checkoutId) }));
  if (!Item) return null;
  const found = { tenantId: String(Item.tenant_id), paymentId: String(Item.payment_id) };
  if (resolved.size >= MAX_REMEMBERED) resolved.delete(resolved.keys().next().value as string);
  resolved.set(checkoutId, found);
  return found;
}

async function find(checkoutId: string): Promise<CheckoutPage | null> {
  const ref = await resolve(checkoutId);
  if (!ref) return null;
  const paymentKey = keys.payment(ref.tenantId, ref.paymentId);
  const tenantKey = keys.tenant(ref.tenantId);
  const items = await batchGet([paymentKey, tenantKey], { attributes: [...PAYMENT_STATE_ATTRIBUTES, 'name'] });
  const item = (key: Key) => items.find((i) => i.pk === key.pk && i.sk === key.sk) ?? null;
  const [payment, tenant] = [item(paymentKey), item(tenantKey)];
  if (!payment) return null;
  return { payment: paymentFromItem(payment), merchantName: typeof tenant?.name === 'string' ? tenant.name : '' };
}

export const dynamoCheckouts: CheckoutReader = { find };
