import { randomUUID } from 'node:crypto';
import { config } from '../config/config.js';
import { GatewayError } from '../domain/errors.js';
import type { JsonNumber } from '../domain/json-number.js';
import { sha256Hex } from '../security/secrets.js';
import { claimIdempotencyKey, completeIdempotencyItem, releaseIdempotencyKey } from '../store/idempotency.js';
import { asWriteItem, transactWrite } from '../store/transact.js';
import { parseJson, toJson } from './json.js';
import type { IdempotencyHandle, RouteResult } from './route.js';

/**
 * `Idempotency-Key` for POSTs that create or move money. The same key and body replay the first answer
 * for 24 h; the same key with another body is 422 `idempotency_key_reused`; a key whose first request is
 * still running is 409 `idempotency_conflict`. The record is completed inside the guarded change's own
 * transaction (see IdempotencyGuard), so a crash cannot leave money moved without its record.
 */

const LOCK_SECONDS = 60;

export interface BeginInput {
  readonly tenantId: string;
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly rawBody: string;
  readonly now: Date;
}

export type Begun =
  | { readonly kind: 'replay'; readonly result: RouteResult }
  | {
      readonly kind: 'claimed';
      readonly handle: IdempotencyHandle;
      /** Completes the record if the route did not complete it inside its own transaction. */
      finish(result: RouteResult): Promise<void>;
      /** Frees the key after a failure, so the client may retry. */
      abandon(): Promise<void>;
    };

/** A stored answer: the body keeps its exact numbers, the status is the HTTP status it was. */
function storedResult(text: string): RouteResult {
  const stored = parseJson(text) as { status: JsonNumber; body?: unknown; headers?: Record<string, string> };
  return { status: Number(stored.status.text), body: stored.body, headers: stored.headers };
}

export async function beginIdempotency(input: BeginInput): Promise<Begun> {
  if (!/^[\x21-\x7e]{1,255}$/.test(input.key)) {
    throw new GatewayError('invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters.', {
      'Idempotency-Key': ['Must be 1 to 255 printable ASCII characters.'],
    });
  }
  const nowSeconds = Math.floor(input.now.getTime() / 1000);
  const ttlSeconds = config().IDEMPOTENCY_TTL_SECONDS;
  const lockId = randomUUID();
  const outcome = await claimIdempotencyKey({
    tenantId: input.tenantId,
    key: input.key,
    requestHash: sha256Hex(`${input.method} ${input.path}\n${input.rawBody}`),
    lockId,
    nowSeconds,
    lockSeconds: LOCK_SECONDS,
    ttlSeconds,
  });
  switch (outcome.kind) {
    case 'replay':
      return { kind: 'replay', result: storedResult(outcome.response) };
    case 'mismatch':
      throw new GatewayError('idempotency_key_reused', undefined, { 'Idempotency-Key': [input.key] });
    case 'in_progress':
      throw new GatewayError('idempotency_conflict', undefined, { 'Idempotency-Key': [input.key] });
    case 'claimed':
      break;
  }
  let completed = false;
  const complete = (result: RouteResult) => completeIdempotencyItem(input.tenantId, input.key, lockId, toJson(result), nowSeconds, ttlSeconds);
  return {
    kind: 'claimed',
    handle: {
      with: (present) => ({
        completeItem: (result) => {
          completed = true;
          return asWriteItem(complete(present(result)));
        },
      }),
    },
    finish: async (result) => {
      if (!completed) await transactWrite([complete(result)]);
    },
    // A completed record no longer holds the lock, so this frees only a key whose change did not commit.
    abandon: () => releaseIdempotencyKey(input.tenantId, input.key, lockId),
  };
}
