import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import { paginator, type Paginate } from './paginate.js';
import { retryingFetch, type FetchLike, type RetryOptions } from './retry.js';
import type { components, paths } from './schema.js';

/**
 * The gateway's typed client: openapi-fetch over the paths of functions/system/openapi.json, authenticated by OAuth
 * client credentials (a token fetched once, shared by concurrent calls, renewed shortly before it expires) or by an
 * API key, every request going through `fetch` (the token's included) with the retries of retry.ts.
 */

export type GatewayCredentials =
  | { readonly baseUrl: string; readonly clientId: string; readonly clientSecret: string; readonly scope?: string }
  | { readonly baseUrl: string; readonly apiKey: string };

export interface GatewayClientOptions extends RetryOptions {
  /** Sends every request, the token's included (default: the global fetch). */
  readonly fetch?: FetchLike;
}

type Method = 'get' | 'post' | 'patch' | 'delete';
/** The paths that have method `M`. */
export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never }[keyof paths];
/** The options of a call: `params` (path, query, header) and `body`, as the operation declares them. */
export type CallInit<P extends PathsWith<M>, M extends Method> = MaybeOptionalInit<paths[P], M>;
type InitArgs<I> = undefined extends I ? [init?: I] : [init: I];

/**
 * openapi-fetch's call, with `init` typed by the path alone (not inferred from the argument), so that an object
 * literal with a field the operation does not have fails to compile instead of widening the call's type.
 */
export type GatewayMethod<M extends Method> = <P extends PathsWith<M>>(
  url: P,
  ...init: InitArgs<CallInit<P, M>>
) => Promise<FetchResponse<paths[P][M] & Record<string | number, unknown>, CallInit<P, M>, 'application/json'>>;

export interface GatewayClient extends Pick<Client<paths, 'application/json'>, 'use' | 'eject'> {
  readonly GET: GatewayMethod<'get'>;
  readonly POST: GatewayMethod<'post'>;
  readonly PATCH: GatewayMethod<'patch'>;
  readonly DELETE: GatewayMethod<'delete'>;
  /** Every item of every page of a list endpoint (see paginate.ts). */
  readonly paginate: Paginate;
}

/** The interface's error envelope (spec section 7.1): `error` of every failed call. */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

/** The token endpoint refused the client's credentials (or did not answer a token). */
export class GatewayAuthError extends Error {
  override readonly name = 'GatewayAuthError';
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export function createGatewayClient(credentials: GatewayCredentials, options: GatewayClientOptions = {}): GatewayClient {
  const baseUrl = credentials.baseUrl.replace(/\/+$/, '');
  const fetchOnce: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
  const authorized: FetchLike =
    'apiKey' in credentials
      ? (request) => fetchOnce(withHeader(request, 'X-API-Key', credentials.apiKey))
      : bearerFetch(fetchOnce, new TokenSource(baseUrl, credentials, retryingFetch(fetchOnce, options)));
  const client = createClient<paths, 'application/json'>({ baseUrl, fetch: retryingFetch(authorized, options) });
  const get = client.GET as unknown as Parameters<typeof paginator>[0];
  return Object.assign(client, { paginate: paginator((path, init) => get(path, init)) }) as unknown as GatewayClient;
}

function withHeader(request: Request, name: string, value: string): Request {
  const headers = new Headers(request.headers);
  headers.set(name, value);
  return new Request(request, { headers });
}

/** Adds the bearer token; a 401 on a cached token (revoked, or expired early) fetches a new one and tries once more. */
function bearerFetch(fetchOnce: FetchLike, tokens: TokenSource): FetchLike {
  return async (request) => {
    const spare = request.clone();
    const { token, fresh } = await tokens.get();
    const response = await fetchOnce(withHeader(request, 'Authorization', `Bearer ${token}`));
    if (response.status !== 401 || fresh) return response;
    await response.body?.cancel().catch(() => undefined);
    tokens.forget(token);
    const renewed = await tokens.get();
    return fetchOnce(withHeader(spare, 'Authorization', `Bearer ${renewed.token}`));
  };
}

/** Renewed this long before the token expires: a minute, or a tenth of a short lifetime. */
const renewBeforeMs = (lifetimeMs: number): number => Math.min(60_000, lifetimeMs / 10);

class TokenSource {
  private current: { readonly token: string; readonly renewAt: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(
    private readonly baseUrl: string,
    private readonly credentials: { readonly clientId: string; readonly clientSecret: string; readonly scope?: string },
    private readonly send: FetchLike,
  ) {}

  /** The cached token while it is good, else the one a single shared request fetches (`fresh`). */
  async get(): Promise<{ token: string; fresh: boolean }> {
    if (this.current && Date.now() < this.current.renewAt) return { token: this.current.token, fresh: false };
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = null;
    });
    return { token: await this.pending, fresh: true };
  }

  forget(token: string): void {
    if (this.current?.token === token) this.current = null;
  }

  private async fetchToken(): Promise<string> {
    const { clientId, clientSecret, scope } = this.credentials;
    const body = JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, ...(scope ? { scope } : {}) });
    const response = await this.send(
      new Request(`${this.baseUrl}/o/token/`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body }),
    );
    const answer = (await response.json().catch(() => null)) as { access_token?: unknown; expires_in?: unknown } | null;
    if (!response.ok || typeof answer?.access_token !== 'string') {
      throw new GatewayAuthError(`POST /o/token/ answered ${response.status}: no access token for client ${clientId}.`, response.status, answer);
    }
    const lifetimeMs = (typeof answer.expires_in === 'number' ? answer.expires_in : 3600) * 1000;
    this.current = { token: answer.access_token, renewAt: Date.now() + lifetimeMs - renewBeforeMs(lifetimeMs) };
    return answer.access_token;
  }
}
