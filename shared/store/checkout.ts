import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { CheckoutPage, CheckoutReader } from '../usecases/checkout/ports.js';
import { db, tableName } from './client.js';
import { keys } from './keys.js';
import { paymentFromItem } from './payment-item.js';

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
  const res = await db().send(
    new BatchGetCommand({
      RequestItems: {
        [tableName()]: {
          Keys: [paymentKey, tenantKey],
          ProjectionExpression: 'pk, sk, #type, #state, #packed, #name',
          ExpressionAttributeNames: { '#type': 'type', '#state': 'state', '#packed': 'packed', '#name': 'name' },
        },
      },
    }),
  );
  const items = res.Responses?.[tableName()] ?? [];
  // Unprocessed keys (throttling) are read again singly rather than shown as missing.
  const item = (key: { pk: string; sk: string }) => items.find((i) => i.pk === key.pk && i.sk === key.sk) ?? null;
  const reread = async (key: { pk: string; sk: string }) => item(key) ?? (await db().send(new GetCommand({ TableName: tableName(), Key: key }))).Item ?? null;
  const [payment, tenant] = await Promise.all([reread(paymentKey), reread(tenantKey)]);
  if (!payment) return null;
  return { payment: paymentFromItem(payment), merchantName: typeof tenant?.name === 'string' ? tenant.name : '' };
}

export const dynamoCheckouts: CheckoutReader = { find };
