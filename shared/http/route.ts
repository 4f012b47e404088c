import type { ZodType } from 'zod';
import type { ErrorCode, ErrorCodeAlias } from '../domain/errors.js';
import type { SchemaGetter } from '../domain/lazy-schema.js';
import type { StoredRates } from '../domain/rates.js';
import type { Scope } from '../domain/scopes.js';
import type { Tenant } from '../domain/tenant.js';
import type { IdempotencyGuard, UsageGuard } from '../usecases/ports.js';

/**
 * A route: what an endpoint needs from the pipeline (auth, scopes, schemas, rate bucket, idempotency,
 * error overrides) and the thin function that calls one use case. Handlers never build error JSON:
 * they throw GatewayErrors and the pipeline answers in the envelope.
 */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * - `public`: no credential (token issuance, status, documentation).
 * - `bearer`: `Authorization: Bearer <token>`.
 * - `bearer-or-api-key`: a bearer token or `X-API-Key` (spec section 5.4: withdrawal list, minimum
 *   withdrawal check, webhook management).
 */
export type AuthMode = 'public' | 'bearer' | 'bearer-or-api-key';

export type Credential = { readonly kind: 'token'; readonly clientId: string } | { readonly kind: 'api_key'; readonly keyId: string };

export interface Principal {
  readonly tenant: Tenant;
  readonly scopes: readonly Scope[];
  readonly credential: Credential;
}

export interface RouteResult {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type { IdempotencyGuard, UsageGuard } from '../usecases/ports.js';

export interface IdempotencyHandle {
  /** A guard whose stored answer is `present(result)`; use cases stay unaware of HTTP. */
  with<T>(present: (result: T) => RouteResult): IdempotencyGuard<T>;
}

export interface RouteRequest<Q, B, P = Readonly<Record<string, string>>> {
  readonly method: Method;
  readonly path: string;
  /** Path parameters, parsed by the route's `params` schema when it has one (a mismatch answers 404). */
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly sourceIp: string;
  readonly requestId: string;
  readonly now: Date;
  /** Present on authenticated routes. */
  readonly principal: Principal | null;
  /** Present when the route is idempotent and the request carries an Idempotency-Key. */
  readonly idempotency: IdempotencyHandle | null;
  /**
   * Present when the route counts its request in its own write (`countsInOwnWrite`) and the pipeline left the
   * count to it; when the route's write does not commit its item, the pipeline counts the request afterwards.
   */
  readonly usage: UsageGuard | null;
  /** What the pipeline read with the credential for the route (`prefetch`). */
  readonly prefetched: Prefetched;
}

/** Items a route asks the pipeline to read with the credential, in the same BatchGetItem, instead of reading them itself. */
export type PrefetchItem = 'rates';

export interface Prefetched {
  /** The current rates snapshot (null: none stored yet), when the route asked for `rates`. */
  readonly rates?: StoredRates | null;
}

export type ErrorOverrides = Partial<Record<ErrorCode, { readonly code?: ErrorCode | ErrorCodeAlias; readonly status?: number }>>;

/** How errors are written: the v1.0 envelope, RFC 6749 token errors, or the flat v0.9 body. */
export type ErrorFormat = 'envelope' | 'oauth' | 'legacy';

export interface RouteDoc {
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  /**
   * Response bodies by status, for the OpenAPI document. Each schema is a getter (`lazySchema`, shared/domain/lazy-schema.ts):
   * nothing at run time reads an answer's schema, so it is built when the document is generated, not at a Lambda's cold start.
   */
  readonly responses: Readonly<Record<number, { readonly description: string; readonly schema?: SchemaGetter }>>;
}

/**
 * A route of an endpoint group. `D` is what the group's composition module builds once per Lambda
 * (`createApi(routes, deps)`); the route receives it with each request, so route definitions stay static
 * data (the OpenAPI document is generated from them without wiring anything).
 */
export interface Route<Q = unknown, B = unknown, D = unknown, P = Readonly<Record<string, string>>> {
  readonly method: Method;
  /**
   * Path template with `{name}` parameters, written as the interface writes it (main group with the trailing
   * slash, custody without). The router also answers the other spelling unless the group has a route there.
   */
  readonly path: string;
  readonly auth: AuthMode;
  readonly scopes?: readonly Scope[];
  /**
   * Schema of the path parameters; a value it refuses answers 404 `not_found` (the path names nothing). Like `query`
   * and `body`, a schema or a getter of one (`lazySchema`), which a route's first request builds (`requestSchema`).
   */
  readonly params?: RequestSchema<P>;
  readonly query?: RequestSchema<Q>;
  readonly body?: RequestSchema<B>;
  /** Accepted body encodings; default JSON only. */
  readonly bodyTypes?: readonly ('json' | 'form')[];
  /** Rate bucket in addition to the per-tenant request limit (e.g. payment creations). */
  readonly rateBucket?: 'payment_creations';
  /**
   * The route counts its request inside its own write (`RouteRequest.usage`), so its limits are held by that
   * transaction and the request makes no counter update of its own.
   */
  readonly countsInOwnWrite?: boolean;
  /** Items read with the credential for the route (`RouteRequest.prefetched`), in the same round trip. */
  readonly prefetch?: readonly PrefetchItem[];
  readonly idempotent?: boolean;
  readonly errorOverrides?: ErrorOverrides;
  readonly errorFormat?: ErrorFormat;
  readonly doc?: RouteDoc;
  handle(request: RouteRequest<Q, B, P>, deps: D): Promise<RouteResult>;
}

/**
 * A route's request schema: the schema itself, or a getter of it (`lazySchema(() => z.object(...))`,
 * shared/domain/lazy-schema.ts) so that a Lambda builds only the schemas of the routes it serves, on their first request.
 */
export type RequestSchema<T> = ZodType<T> | SchemaGetter<ZodType<T>>;

/** The schema a route field names (built now if it is a getter; the getter keeps it). */
export function requestSchema<T>(field: RequestSchema<T>): ZodType<T>;
export function requestSchema<T>(field: RequestSchema<T> | undefined): ZodType<T> | undefined;
export function requestSchema<T>(field: RequestSchema<T> | undefined): ZodType<T> | undefined {
  return typeof field === 'function' ? field() : field;
}

/** A route as the pipeline holds it: schemas erased, deps kept. */
export type AnyRoute<D = unknown> = Route<unknown, unknown, D, unknown>;

/** Identity function that keeps the params, query and body types of a route tied to its schemas. */
export function route<Q = undefined, B = undefined, D = unknown, P = Readonly<Record<string, string>>>(definition: Route<Q, B, D, P>): AnyRoute<D> {
  return definition as unknown as AnyRoute<D>;
}

/** `route` for a group whose routes all receive `D`: `const route = routesOf<PaymentsDeps>();`. */
export const routesOf =
  <D>() =>
  <Q = undefined, B = undefined, P = Readonly<Record<string, string>>>(definition: Route<Q, B, D, P>): AnyRoute<D> =>
    route(definition);

export const ok = (body: unknown, headers?: Record<string, string>): RouteResult => ({ status: 200, body, headers });
export const created = (body: unknown): RouteResult => ({ status: 201, body });
export const accepted = (body: unknown): RouteResult => ({ status: 202, body });
export const noContent = (): RouteResult => ({ status: 204 });

/** The authenticated principal; routes that are not public always have one. */
export function principalOf(request: { readonly principal: Principal | null }): Principal {
  if (!request.principal) throw new Error('Route requires authentication but has no principal');
  return request.principal;
}
