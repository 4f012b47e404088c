import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { GatewayError } from '../../../shared/domain/errors.js';
import { READ_WRITE } from '../../../shared/domain/scopes.js';
import { createApi } from '../../../shared/http/pipeline.js';
import { created, principalOf, route, type RouteResult } from '../../../shared/http/route.js';
import { db, tableName } from '../../../shared/store/client.js';
import { claimIdempotencyKey, completeIdempotencyItem } from '../../../shared/store/idempotency.js';
import { asTransactItem, transactWrite } from '../../../shared/store/transact.js';
import { clientAuthFrom, issueToken } from '../../../shared/usecases/auth/issue-token.js';
import { createTenant } from '../../../shared/usecases/tenants/create-tenant.js';
import { decimalInput } from '../../../shared/usecases/schema.js';
import { startTestTable, type TestTable } from '../../support/dynamodb.js';
import { apiEvent, lambdaContext } from '../../unit/http/event.js';
import { tenantsRuntime } from '../../../shared/runtime/tenants.js';
import { authRuntime } from '../../../shared/runtime/auth.js';

/**
 * Idempotency-Key against DynamoDB Local: a guarded change and its record commit in one transaction;
 * a replay answers the first answer without changing anything again.
 */
let table: TestTable;
let bearer: string;
let tenantId: string;
let gate: Promise<void> | null = null;
let failNext = false;

const counterKey = (t: string) => ({ pk: `TENANT#${t}`, sk: 'TEST#COUNTER' });

// A money-like change: adds `amount` to a counter, with the idempotency record in the same transaction.
const api = createApi(
  [
    route({
      method: 'POST',
      path: '/deposits/',
      auth: 'bearer',
      scopes: READ_WRITE,
      idempotent: true,
      body: z.object({ amount: decimalInput() }),
      handle: async (req): Promise<RouteResult> => {
        if (gate) await gate;
        if (failNext) {
          failNext = false;
          throw new GatewayError('invalid_request', 'refused before any change');
        }
        const tenant = principalOf(req).tenant.id;
        const result = { id: crypto.randomUUID(), amount: req.body.amount };
        const present = (r: typeof result) => created(r);
        const guard = req.idempotency?.with(present);
        await transactWrite([
          {
            Update: {
              TableName: tableName(),
              Key: counterKey(tenant),
              UpdateExpression: 'ADD amount_sum :a, changes :one',
              ExpressionAttributeValues: { ':a': Number(req.body.amount), ':one': 1 },
            },
          },
          ...(guard ? [asTransactItem(guard.completeItem(result))] : []),
        ]);
        return present(result);
      },
    }),
  ],
  {},
);

async function post(body: string, key?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
  if (key) headers['idempotency-key'] = key;
  const res = (await api(apiEvent('POST', '/deposits/', { body, headers }), lambdaContext)) as APIGatewayProxyStructuredResultV2 & {
    body: string;
    headers: Record<string, string>;
  };
  return { status: res.statusCode, body: JSON.parse(res.body), headers: res.headers };
}

async function changes(): Promise<number> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: counterKey(tenantId) }));
  return Item ? Number(String(Item.changes)) : 0;
}

beforeAll(async () => {
  table = await startTestTable();
  const made = await createTenant({ name: 'Idem' }, tenantsRuntime());
  tenantId = made.tenant.id;
  bearer = (
    await issueToken(
      { grant_type: 'client_credentials' },
      clientAuthFrom(undefined, { client_id: made.clientId, client_secret: made.clientSecret }),
      new Date(),
      authRuntime(),
    )
  ).access_token;
});

afterAll(async () => {
  await table?.stop();
});

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body, and changes nothing again', async () => {
    const first = await post('{"amount": 5}', 'key-1');
    expect(first.status).toBe(201);
    const second = await post('{"amount": 5}', 'key-1');
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers['Idempotent-Replayed']).toBe('true');
    expect(await changes()).toBe(1);
  });

  it('answers 422 idempotency_key_reused for the same key with another body', async () => {
    await post('{"amount": 1}', 'key-2');
    const reused = await post('{"amount": 2}', 'key-2');
    expect([reused.status, reused.body.error.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('answers 409 idempotency_conflict while the first request with the key is still running', async () => {
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const first = post('{"amount": 3}', 'key-3');
    await new Promise((r) => setTimeout(r, 200));
    const concurrent = await post('{"amount": 3}', 'key-3');
    gate = null;
    open();
    expect([concurrent.status, concurrent.body.error.code]).toEqual([409, 'idempotency_conflict']);
    expect((await first).status).toBe(201);
  });

  it('frees the key when the request fails before changing anything, so a retry goes through', async () => {
    const before = await changes();
    failNext = true;
    expect((await post('{"amount": 4}', 'key-4')).status).toBe(400);
    expect((await post('{"amount": 4}', 'key-4')).status).toBe(201);
    expect(await changes()).toBe(before + 1);
  });

  it('treats an expired record as free (TTL deletes late, so expiry is checked on read)', async () => {
    await post('{"amount": 6}', 'key-5');
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: `TENANT#${tenantId}`, sk: 'IDEM#key-5' },
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': 1 },
      }),
    );
    const before = await changes();
    const again = await post('{"amount": 6}', 'key-5');
    expect(again.headers['Idempotent-Replayed']).toBeUndefined();
    expect(await changes()).toBe(before + 1);
  });

  it('without a key, every request changes state', async () => {
    const before = await changes();
    await post('{"amount": 1}');
    await post('{"amount": 1}');
    expect(await changes()).toBe(before + 2);
  });

  it('a change whose key record was taken over meanwhile (its lock ran out) is 409 idempotency_conflict and writes nothing', async () => {
    const key = `taken-${Date.now()}`;
    const nowSeconds = Math.floor(Date.now() / 1000);
    const claim = { tenantId, key, requestHash: 'h', nowSeconds, lockSeconds: 60, ttlSeconds: 86_400 };
    expect(await claimIdempotencyKey({ ...claim, lockId: 'lock-now-holding' })).toEqual({ kind: 'claimed', lockId: 'lock-now-holding' });
    const marker = { pk: `TENANT#${tenantId}`, sk: `TEST#${key}` };
    const change = { Put: { TableName: tableName(), Item: { ...marker, written: true } } };
    // The change of a request whose lock is no longer its own: the record refuses its completion.
    const error = await transactWrite([change, completeIdempotencyItem(tenantId, key, 'lock-run-out', '{}', nowSeconds, 86_400)]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'idempotency_conflict', status: 409 });
    expect((await db().send(new GetCommand({ TableName: tableName(), Key: marker }))).Item).toBeUndefined();
  });
});
