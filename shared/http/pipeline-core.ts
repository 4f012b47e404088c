import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import type { ZodType } from 'zod';
import { GatewayError, ValidationError } from '../domain/errors.js';
import { errorResponse } from './errors.js';
import type { BeginInput, Begun } from './idempotency.js';
import { parseJson, toJson } from './json.js';
import type { DeferredCount } from './rate-limit.js';
import type { AnyRoute, Method, Prefetched, Principal, RouteRequest, RouteResult } from './route.js';
import { createRouter } from './router.js';

/**
 * The middy stack of the API Lambdas: request id, routing on method + rawPath, body parsing (lossless JSON,
 * size and content-type checks), access (authentication, account checks, rate limits, scopes) where a route
 * is not public, zod validation, idempotency, and the error envelope. Handlers only call a use case and answer.
 *
 * What authenticated routes need (credentials, tenants, usage counters and idempotency records in the table)
 * is handed in as a TenantAccess by shared/http/pipeline.ts (`createApi`), so a Lambda whose routes are all
 * public (shared/http/public-pipeline.ts) neither bundles nor loads it.
 */

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

export const MAX_BODY_BYTES = 1024 * 1024;

export interface ApiOptions {
  /** Time source; tests pass a fixed clock. */
  readonly clock?: () => Date;
}

/** A request to a route that is not public, admitted. */
export interface Admission {
  readonly principal: Principal;
  /** What was read with the credential for the route (`Route.prefetch`). */
  readonly prefetched: Prefetched;
  /** The request's count when it is left to the route's own write (`Route.countsInOwnWrite`); null: counted already. */
  readonly count: DeferredCount | null;
}

/** What the pipeline asks of the tenant's side for a route that is not public. */
export interface TenantAccess {
  /**
   * A request to a route that is not public, after its account checks, rate limits and scopes; the rate-limit
   * headers go into `headers` (the answer carries them, a refusal too).
   */
  authorize(route: AnyRoute, event: ApiEvent, now: Date, headers: Record<string, string>): Promise<Admission>;
  /** `Idempotency-Key` of an idempotent route (shared/http/idempotency.ts). */
  beginIdempotency(input: BeginInput): Promise<Begun>;
}

/** What the middlewares learn about a request, shared through the middy request object. */
interface RequestState {
  requestId: string;
  now: Date;
  route: AnyRoute | null;
  params: Record<string, string>;
  rawBody: string | undefined;
  body: unknown;
  principal: Principal | null;
  prefetched: Prefetched;
  count: DeferredCount | null;
  headers: Record<string, string>;
}

type MiddyRequest = middy.Request<ApiEvent, ApiResult, Error, Context> & { gateway?: RequestState };

function stateOf(request: MiddyRequest): RequestState {
  if (!request.gateway) throw new Error('request state missing');
  return request.gateway;
}

export const header = (event: ApiEvent, name: string): string | undefined => event.headers?.[name.toLowerCase()];

/** 1. Request id, and the answer's final shape on success and on error. */
function respond(clock: () => Date): middy.MiddlewareObj<ApiEvent, ApiResult, Error, Context> {
  return {
    before: (request: MiddyRequest) => {
      const incoming = header(request.event, 'x-request-id');
      request.gateway = {
        requestId: incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : (request.event.requestContext?.requestId ?? randomUUID()),
        now: clock(),
        route: null,
        params: {},
        rawBody: undefined,
        body: undefined,
        principal: null,
        prefetched: {},
        count: null,
        headers: {},
      };
    },
    after: (request: MiddyRequest) => {
      const state = stateOf(request);
      const response = request.response ?? { statusCode: 500 };
      response.headers = { ...state.headers, ...response.headers, 'X-Request-Id': state.requestId };
    },
    onError: (request: MiddyRequest) => {
      const state = request.gateway ?? null;
      const requestId = state?.requestId ?? randomUUID();
      const route = state?.route ?? null;
      const { statusCode, body, headers } = errorResponse(request.error, route, requestId);
      request.response = {
        statusCode,
        body,
        headers: { ...(state?.headers ?? {}), ...headers, 'Content-Type': 'application/json', 'X-Request-Id': requestId },
      };
    },
  };
}

/** 2. Routing: 404 for an unknown path, 405 with Allow for a known path and another method. */
function match(routes: readonly AnyRoute[]): middy.MiddlewareObj<ApiEvent, ApiResult, Error, Context> {
  const find = createRouter(routes);
  return {
    before: (request: MiddyRequest) => {
      const state = stateOf(request);
      const method = request.event.requestContext.http.method.toUpperCase();
      const found = find(method, request.event.rawPath);
      if (found.kind === 'not_found') throw new GatewayError('not_found', `No endpoint at ${request.event.rawPath}.`, { path: request.event.rawPath });
      if (found.kind === 'method_not_allowed') {
        state.headers.Allow = found.allow.join(', ');
        throw new GatewayError('method_not_allowed', `${method} is not allowed on ${request.event.rawPath}.`, { allowed_methods: found.allow });
      }
      state.route = found.route;
      state.params = found.params;
    },
  };
}

/** 3. Body: at most 1 MB; JSON parsed losslessly; form bodies (base64 from API Gateway) where allowed. */
function parseBody(): middy.MiddlewareObj<ApiEvent, ApiResult, Error, Context> {
  return {
    before: (request: MiddyRequest) => {
      const state = stateOf(request);
      const route = state.route;
      const { body: raw, isBase64Encoded } = request.event;
      if (!route || raw === undefined || raw === null || raw === '') return;
      const bytes = isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
      if (bytes.length > MAX_BODY_BYTES) throw new GatewayError('payload_too_large');
      const text = bytes.toString('utf8');
      state.rawBody = text;
      if (!route.body) return;
      const type = (header(request.event, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      const accepts = route.bodyTypes ?? ['json'];
      if ((type === 'application/json' || type.endsWith('+json')) && accepts.includes('json')) {
        try {
          state.body = parseJson(text);
        } catch (error) {
          throw new GatewayError('invalid_request', `Malformed JSON: ${(error as Error).message}`, { body: ['Malformed JSON.'] });
        }
        return;
      }
      if (type === 'application/x-www-form-urlencoded' && accepts.includes('form')) {
        state.body = Object.fromEntries(new URLSearchParams(text));
        return;
      }
      const wanted = accepts.map((a) => (a === 'json' ? 'application/json' : 'application/x-www-form-urlencoded')).join(' or ');
      throw new GatewayError('unsupported_media_type', `The request body must be ${wanted}.`, { content_type: type || null });
    },
  };
}

/** 4. Credentials, account checks (suspension, IP allow-list), rate limits, then scopes. */
function authorize(access: TenantAccess | null): middy.MiddlewareObj<ApiEvent, ApiResult, Error, Context> {
  return {
    before: async (request: MiddyRequest) => {
      const state = stateOf(request);
      const route = state.route;
      if (!route || route.auth === 'public') return;
      if (!access) throw new Error(`${route.method} ${route.path} is not public and this API has no tenant access`);
      const admitted = await access.authorize(route, request.event, state.now, state.headers);
      state.principal = admitted.principal;
      state.prefetched = admitted.prefetched;
      state.count = admitted.count;
    },
  };
}

/** Zod issues as the envelope's details: each field (dotted path) mapped to its messages. */
function issuesByField(issues: readonly { path: readonly PropertyKey[]; message: string }[], fallback: string): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const issue of issues) {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : fallback;
    (fields[field] ??= []).push(issue.message);
  }
  return fields;
}

function validate<T>(schema: ZodType<T> | undefined, input: unknown, where: 'query' | 'body'): T {
  if (!schema) return undefined as T;
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw new ValidationError(issuesByField(parsed.error.issues, where === 'body' ? 'non_field_errors' : 'query'));
}

/** Path parameters a route's schema refuses name nothing: 404, with what was wrong per parameter. */
function validateParams(schema: ZodType | undefined, params: Record<string, string>, path: string): unknown {
  if (!schema) return params;
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  throw new GatewayError('not_found', `No endpoint or resource at ${path}.`, issuesByField(parsed.error.issues, 'path'));
}

function serialise(result: RouteResult): ApiResult {
  const headers: Record<string, string> = { ...result.headers };
  if (result.body === undefined) return { statusCode: result.status, headers, body: '' };
  if (typeof result.body === 'string' && headers['Content-Type']) return { statusCode: result.status, headers, body: result.body };
  return { statusCode: result.status, headers: { 'Content-Type': 'application/json', ...headers }, body: toJson(result.body) };
}

/** The API of a route table; `access` serves its routes that are not public (null: it has none). */
export function createPipeline<D>(routes: readonly AnyRoute<D>[], deps: D, options: ApiOptions, access: TenantAccess | null) {
  const clock = options.clock ?? (() => new Date());
  const answer = async (event: ApiEvent, state: RequestState, route: AnyRoute<D>): Promise<ApiResult> => {
    const params = validateParams(route.params, state.params, event.rawPath);
    const query = validate(route.query, event.queryStringParameters ?? {}, 'query');
    const body = validate(route.body, state.body, 'body');
    const request: RouteRequest<unknown, unknown, unknown> = {
      method: event.requestContext.http.method.toUpperCase() as Method,
      path: event.rawPath,
      params,
      query,
      body,
      headers: event.headers ?? {},
      sourceIp: event.requestContext.http.sourceIp,
      requestId: state.requestId,
      now: state.now,
      principal: state.principal,
      idempotency: null,
      usage: state.count?.guard ?? null,
      prefetched: state.prefetched,
    };
    const key = header(event, 'idempotency-key');
    if (route.idempotent && key && state.principal && access) {
      const outcome = await access.beginIdempotency({
        tenantId: state.principal.tenant.id,
        key,
        method: request.method,
        path: request.path,
        rawBody: state.rawBody ?? '',
        now: state.now,
      });
      if (outcome.kind === 'replay') return serialise({ ...outcome.result, headers: { ...outcome.result.headers, 'Idempotent-Replayed': 'true' } });
      try {
        const result = await route.handle({ ...request, idempotency: outcome.handle }, deps);
        await outcome.finish(result);
        return serialise(result);
      } catch (error) {
        await outcome.abandon();
        throw error;
      }
    }
    return serialise(await route.handle(request, deps));
  };

  const dispatch = async (event: ApiEvent, context: Context): Promise<ApiResult> => {
    const state = (context as Context & { gateway?: RequestState }).gateway;
    if (!state?.route) throw new Error('route missing');
    const count = state.count;
    if (!count) return answer(event, state, state.route);
    // Whatever the route did, the request is counted once: in its write, or here after it.
    let result: ApiResult;
    try {
      result = await answer(event, state, state.route);
    } catch (error) {
      await count.settle(false, state.headers);
      throw error;
    }
    await count.settle(true, state.headers);
    return result;
  };

  // Middy passes the same request object to every middleware; the handler reads the state through the
  // context, which middy hands it unchanged.
  const share: middy.MiddlewareObj<ApiEvent, ApiResult, Error, Context> = {
    before: (request: MiddyRequest) => {
      (request.context as Context & { gateway?: RequestState }).gateway = stateOf(request);
    },
  };

  return middy<ApiEvent, ApiResult, Error, Context>()
    .use(respond(clock))
    .use(match(routes))
    .use(parseBody())
    .use(authorize(access))
    .use(share)
    .handler(dispatch);
}
