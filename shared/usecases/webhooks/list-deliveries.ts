import * as z from 'zod';
import { ValidationError } from '../../domain/errors.js';
import { WORDING } from '../../domain/errors-wording.js';
import { DELIVERY_LOG_DAYS } from '../../domain/webhooks.js';
import type { AttemptPosition, WebhookPorts } from './ports.js';
import { attemptView } from './views.js';
import type { AttemptListView } from './views.js';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { LazyOutput } from '../../domain/lazy-schema.js';

export const ListAttemptsInput = lazySchema(() =>
  z.object({
    limit: z.coerce.number().int().min(1).max(100).default(50),
    cursor: z.string().max(500).optional().describe('Opaque: the next_cursor of the previous page'),
  }),
);
export type ListAttemptsInput = LazyOutput<typeof ListAttemptsInput>;

/**
 * The cursor of the attempt log: base64url of `{t, at, d, n}` (tenant, and the last attempt listed). It is
 * opaque to clients and checked on the way back: a cursor that does not decode, does not match the shape, or
 * belongs to another tenant is 400 `invalid_request` with `details.cursor`, never a key handed to the store.
 */
const CursorBody = lazySchema(() =>
  z.strictObject({
    t: z.string().min(1),
    at: z.iso.datetime(),
    d: z.string().min(1).max(200),
    n: z.number().int().min(1).max(1000),
  }),
);

const encodeCursor = (tenantId: string, p: AttemptPosition): string =>
  Buffer.from(JSON.stringify({ t: tenantId, at: p.at, d: p.deliveryId, n: p.attempt }), 'utf8').toString('base64url');

function decodeCursor(tenantId: string, cursor: string): AttemptPosition {
  const refuse = () => ValidationError.field('cursor', WORDING.notOurs);
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  const parsed = CursorBody().safeParse(body);
  if (
    !parsed.success ||
    parsed.data.t !== tenantId ||
    encodeCursor(tenantId, { at: parsed.data.at, deliveryId: parsed.data.d, attempt: parsed.data.n }) !== cursor
  ) {
    throw refuse();
  }
  return { at: parsed.data.at, deliveryId: parsed.data.d, attempt: parsed.data.n };
}

/** GET /user/webhooks/deliveries/: delivery attempts of the last DELIVERY_LOG_DAYS, newest first. */
export async function listDeliveries(
  tenantId: string,
  input: ListAttemptsInput,
  now: Date,
  deps: Pick<WebhookPorts, 'webhookAttempts'>,
): Promise<AttemptListView> {
  const since = new Date(now.getTime() - DELIVERY_LOG_DAYS * 86400_000);
  const after = input.cursor === undefined ? null : decodeCursor(tenantId, input.cursor);
  const { items, next } = await deps.webhookAttempts.list(tenantId, since, input.limit, after);
  return { results: items.map(attemptView), next_cursor: next ? encodeCursor(tenantId, next) : null };
}
