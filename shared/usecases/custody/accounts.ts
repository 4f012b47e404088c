import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { lazySchema } from '../../domain/lazy-schema.js';
import type { CustodyAccountState } from '../../domain/custody.js';
import { ACCOUNT_STATUSES, ACCOUNT_TYPES, BUILTIN_PROVIDER, METADATA_MAX_KEYS, METADATA_MAX_LENGTH, openAccount } from '../../domain/custody.js';
import { ValidationError } from '../../domain/errors.js';
import { WORDING } from '../../domain/errors-wording.js';
import { queryInteger } from '../schema.js';
import { findAccount } from './find-account.js';
import type { IdempotencyGuard } from '../ports.js';
import type { CustodyPorts } from './ports.js';
import { custodyAccountRecord } from './present.js';

/** `POST /custody/accounts` body (spec 4.8). */
export const CreateCustodyAccountBody = lazySchema(() =>
  z
    .object({
      name: z.string().trim().min(1).max(100),
      provider: z.string().trim().min(1).max(50).optional(),
      account_type: z.enum(ACCOUNT_TYPES).default('standard'),
      metadata: z
        .record(z.string().min(1).max(64), z.string().max(METADATA_MAX_LENGTH))
        .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, `At most ${METADATA_MAX_KEYS} keys.`)
        .default({}),
    })
    .meta({ id: 'CreateCustodyAccountRequest' }),
);
export type CreateCustodyAccountBody = z.output<ReturnType<typeof CreateCustodyAccountBody>>;

/** What `POST /custody/accounts` answers (and an Idempotency-Key replays). */
export type CustodyAccountAnswer = ReturnType<typeof custodyAccountRecord>;

/**
 * A new account, active and immediately usable for deposit addresses, with the provider asked (default the built-in
 * one); stored with the Idempotency-Key record when guarded.
 */
export async function createAccount(
  tenantId: string,
  body: CreateCustodyAccountBody,
  deps: Pick<CustodyPorts, 'accounts' | 'providers' | 'clock'>,
  idempotency: IdempotencyGuard<CustodyAccountAnswer> | null = null,
): Promise<CustodyAccountAnswer> {
  const provider = body.provider ?? BUILTIN_PROVIDER;
  if (!(provider in deps.providers)) throw ValidationError.field('provider', WORDING.choice(Object.keys(deps.providers)));
  const account = openAccount(
    { tenantId, accountId: randomUUID(), name: body.name, provider, accountType: body.account_type, metadata: body.metadata },
    deps.clock.now(),
  );
  const stored = await deps.accounts.create(account, idempotency ? (a) => [idempotency.completeItem(custodyAccountRecord(a))] : undefined);
  return custodyAccountRecord(stored);
}

/** `GET /custody/accounts` query: skip (default 0), limit (default 10, at most 100), status. */
export const ListCustodyAccountsQuery = lazySchema(() =>
  z.object({
    skip: queryInteger(0, 100_000).default(0),
    limit: queryInteger(1, 100).default(10),
    status: z.enum(ACCOUNT_STATUSES).optional(),
  }),
);
export type ListCustodyAccountsQuery = z.output<ReturnType<typeof ListCustodyAccountsQuery>>;

/** The tenant's accounts, oldest first: an array, as the spec shows. */
export async function listAccounts(tenantId: string, q: ListCustodyAccountsQuery, deps: Pick<CustodyPorts, 'accounts'>) {
  const accounts = await deps.accounts.list(tenantId, { skip: q.skip, limit: q.limit, ...(q.status ? { status: q.status } : {}) });
  return accounts.map((a: CustodyAccountState) => custodyAccountRecord(a));
}

export { findAccount };
