/**
 * The local stand-in for API Gateway (HTTP API, payload format 2.0): every request becomes the v2 event
 * API Gateway would send, routed like API Gateway routes, and the same handler modules CDK deploys answer it.
 *
 * Behaviour copied from API Gateway, on purpose:
 * - route selection: exact routes win over `{param}` routes, which win over greedy `{proxy+}` routes (the
 *   longest prefix first); `ANY /x` also takes `/x/`; `$default` takes the rest.
 * - `rawPath` is the URL-decoded path and keeps its trailing slash; `rawQueryString` is as sent;
 *   `queryStringParameters` are decoded, repeated keys joined by ','; headers lower-cased, repeated ones
 *   joined by ','; the Cookie header moves to `cookies`.
 * - the body is a UTF-8 string only for text/*, application/json, application/xml and application/javascript;
 *   anything else (form bodies, multipart, no content type) is base64 with `isBase64Encoded: true`.
 * - 10 MB payload limit (413), 30 s integration timeout (503), an exception is a 500
 *   `{"message":"Internal Server Error"}`.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { API_FUNCTIONS } from '../definition.js';

export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => unknown;

/** A function the server routes to: an entry module (loaded on first use) or, for tests, a handler in memory. */
export interface HttpFunction {
  readonly name: string;
  /** API Gateway route keys: `ANY /x`, `GET /x/{id}`, `ANY /x/{proxy+}`, `$default`. */
  readonly routes: readonly string[];
  /** Module exporting `handler`, relative to `rootDir` (or absolute). */
  readonly entry?: string;
  readonly handler?: HttpHandler;
}

export interface StartHttpServerOptions {
  /** Default: `PORT` env, else 3000. 0 = a free port. */
  readonly port?: number;
  readonly host?: string;
  /** Default: API_FUNCTIONS of infra/definition.ts. */
  readonly functions?: readonly HttpFunction[];
  /** Directory entries are relative to (default: the repository root). */
  readonly rootDir?: string;
  /** API Gateway's payload limit (10 MB). */
  readonly maxBodyBytes?: number;
  /** API Gateway's integration timeout (30 s). */
  readonly timeoutMs?: number;
  readonly log?: (line: string) => void;
  /** One line per request through `log`. */
  readonly logRequests?: boolean;
}

export interface LocalHttpServer {
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const TIMEOUT_MS = 30_000;
const ACCOUNT_ID = '123456789012';
const API_ID = 'local';

/* ------------------------------------------------------------------------------------------------------------ */
/* Handlers, loaded once                                                                                        */
/* ------------------------------------------------------------------------------------------------------------ */

class FunctionSlot {
  handler: HttpHandler | undefined;
  private loading: Promise<HttpHandler> | undefined;
  private failedAt = 0;
  private failure: Error | undefined;

  constructor(
    readonly fn: HttpFunction,
    private readonly rootDir: string,
    private readonly log: (line: string) => void,
  ) {
    this.handler = fn.handler;
  }

  /** The handler; the module is imported on first use and cached (a failed import is retried after 1 s). */
  load(): Promise<HttpHandler> {
    if (this.handler) return Promise.resolve(this.handler);
    if (this.loading) return this.loading;
    if (this.failure && Date.now() - this.failedAt < 1_000) return Promise.reject(this.failure);
    const entry = this.fn.entry;
    if (!entry) return Promise.reject(new Error(`function ${this.fn.name} has neither entry nor handler`));
    const path = isAbsolute(entry) ? entry : resolve(this.rootDir, entry);
    const specifier = process.platform === 'win32' ? pathToFileURL(path).href : path;
    this.loading = import(specifier).then(
      (mod: unknown) => {
        const handler = typeof mod === 'object' && mod !== null && 'handler' in mod ? mod.handler : undefined;
        if (typeof handler !== 'function') throw new Error(`${entry} does not export a function named handler`);
        this.handler = handler as HttpHandler;
        this.loading = undefined;
        this.failure = undefined;
        return this.handler;
      },
    );
    this.loading.catch((error: unknown) => {
      this.loading = undefined;
      this.failedAt = Date.now();
      this.failure = error instanceof Error ? error : new Error(String(error));
      this.log(`http: cannot load ${entry} (function ${this.fn.name}): ${oneLine(this.failure.message)}`);
    });
    return this.loading;
  }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Routes                                                                                                       */
/* ------------------------------------------------------------------------------------------------------------ */

interface Route {
  readonly routeKey: string;
  /** Upper-case method or 'ANY'. */
  readonly method: string;
  readonly slot: FunctionSlot;
  /** Path segments without the leading empty one; `{x}` and `{x+}` kept as written. */
  readonly segments: readonly string[];
  readonly greedy: string | undefined;
  /** For greedy routes: the literal prefix ending in '/'. */
  readonly prefix: string;
  readonly literals: number;
}

interface Match {
  readonly route: Route;
  readonly pathParameters: Record<string, string> | undefined;
}

export class Router {
  private readonly exact = new Map<string, Route>();
  private readonly withParams: Route[] = [];
  private readonly greedy: Route[] = [];
  private fallback: Route | undefined;

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      if (route.routeKey === '$default') {
        if (this.fallback) throw new Error(`$default is routed twice (${this.fallback.slot.fn.name}, ${route.slot.fn.name})`);
        this.fallback = route;
      } else if (route.greedy !== undefined) {
        this.greedy.push(route);
      } else if (route.segments.some(isParam)) {
        this.withParams.push(route);
      } else {
        const key = `${route.method} /${route.segments.join('/')}`;
        if (this.exact.has(key)) throw new Error(`route ${route.routeKey} is defined twice`);
        this.exact.set(key, route);
      }
    }
    // More literal segments first; then ANY after a specific method.
    const order = (a: Route, b: Route): number =>
      b.literals - a.literals || b.prefix.length - a.prefix.length || Number(a.method === 'ANY') - Number(b.method === 'ANY');
    this.withParams.sort(order);
    this.greedy.sort(order);
  }

  match(method: string, path: string): Match | undefined {
    // API Gateway route keys cannot end in '/', and `/x/` goes to the `/x` route.
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const exact = this.exact.get(`${method} ${trimmed}`) ?? this.exact.get(`ANY ${trimmed}`);
    if (exact) return { route: exact, pathParameters: undefined };
    if (this.withParams.length > 0) {
      const parts = trimmed.split('/').slice(1);
      for (const route of this.withParams) {
        if (route.method !== 'ANY' && route.method !== method) continue;
        const params = matchSegments(route.segments, parts);
        if (params) return { route, pathParameters: params };
      }
    }
    for (const route of this.greedy) {
      if (route.method !== 'ANY' && route.method !== method) continue;
      if (path.length <= route.prefix.length || !path.startsWith(route.prefix)) continue;
      let params: Record<string, string> | undefined = {};
      if (route.segments.length > 1) {
        // Literal or {param} segments before the greedy one.
        params = matchSegments(route.segments.slice(0, -1), path.slice(1, route.prefix.length - 1).split('/'));
        if (!params) continue;
      }
      params[route.greedy as string] = path.slice(route.prefix.length);
      return { route, pathParameters: params };
    }
    return this.fallback ? { route: this.fallback, pathParameters: undefined } : undefined;
  }
}

const isParam = (segment: string): boolean => segment.startsWith('{') && segment.endsWith('}');

function matchSegments(segments: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  let params: Record<string, string> | undefined;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    const part = parts[i] as string;
    if (isParam(segment)) {
      if (part === '') return undefined;
      (params ??= {})[segment.slice(1, -1)] = part;
    } else if (segment !== part) {
      return undefined;
    }
  }
  return params ?? {};
}

function compileRoute(routeKey: string, slot: FunctionSlot): Route {
  if (routeKey === '$default') {
    return { routeKey, method: 'ANY', slot, segments: [], greedy: undefined, prefix: '', literals: 0 };
  }
  const match = /^([A-Z]+) (\/.*)$/.exec(routeKey);
  if (!match) throw new Error(`invalid route key "${routeKey}" (function ${slot.fn.name})`);
  const method = match[1] as string;
  const path = match[2] as string;
  if (path.length > 1 && path.endsWith('/')) throw new Error(`route key "${routeKey}" ends in '/' (API Gateway rejects it)`);
  const segments = path === '/' ? [] : path.slice(1).split('/');
  const last = segments[segments.length - 1];
  let greedy: string | undefined;
  let prefix = '';
  if (last !== undefined && /^\{[^}]+\+\}$/.test(last)) {
    greedy = last.slice(1, -2);
    prefix = `/${segments.slice(0, -1).map((s) => `${s}/`).join('')}`;
  }
  for (const s of greedy ? segments.slice(0, -1) : segments) {
    if (s.includes('+')) throw new Error(`route key "${routeKey}": a greedy variable must be the last segment`);
  }
  return { routeKey, method, slot, segments, greedy, prefix, literals: segments.filter((s) => !isParam(s)).length };
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Request -> event                                                                                             */
/* ------------------------------------------------------------------------------------------------------------ */

const TEXT_TYPES = new Set(['application/json', 'application/xml', 'application/javascript']);

/** API Gateway (HTTP API) passes these bodies as text; every other body is base64. */
export function isTextContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type.startsWith('text/') || TEXT_TYPES.has(type);
}

function decodePercent(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function parseQuery(raw: string): Record<string, string> | undefined {
  if (raw === '') return undefined;
  let result: Record<string, string> | undefined;
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodePercent(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decodePercent(pair.slice(eq + 1));
    result ??= {};
    const previous = result[key];
    result[key] = previous === undefined ? value : `${previous},${value}`;
  }
  return result;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
let timeCacheSecond = -1;
let timeCacheText = '';
/** `12/Mar/2020:19:03:58 +0000`, as in requestContext.time. */
function requestTime(epochMs: number): string {
  const second = Math.floor(epochMs / 1000);
  if (second !== timeCacheSecond) {
    const d = new Date(second * 1000);
    const p = (n: number): string => (n < 10 ? `0${n}` : String(n));
    timeCacheText = `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
    timeCacheSecond = second;
  }
  return timeCacheText;
}

function sourceIpOf(req: IncomingMessage): string {
  const ip = req.socket.remoteAddress ?? '';
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

function traceId(epochMs: number, requestId: string): string {
  // 96 random bits from the request id (randomUUID draws from a cached entropy pool: cheaper than randomBytes).
  return `Root=1-${Math.floor(epochMs / 1000).toString(16)}-${requestId.slice(0, 8)}${requestId.slice(9, 13)}${requestId.slice(24)}`;
}

export interface EventParts {
  readonly method: string;
  readonly rawHeaders: readonly string[];
  readonly httpVersion: string;
  readonly sourceIp: string;
  readonly localPort: number;
  readonly body: Buffer | undefined;
  readonly routeKey: string;
  readonly pathParameters: Record<string, string> | undefined;
  readonly rawPath: string;
  readonly rawQueryString: string;
  readonly requestId: string;
  readonly now: number;
}

/** The API Gateway HTTP API (v2) event of a request. */
export function buildEvent(p: EventParts): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  const raw = p.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    if (name === 'cookie') {
      for (const c of value.split(';')) {
        const cookie = c.trim();
        if (cookie !== '') (cookies ??= []).push(cookie);
      }
      continue;
    }
    const previous = headers[name];
    headers[name] = previous === undefined ? value : `${previous},${value}`;
  }
  const forwarded = headers['x-forwarded-for'];
  headers['x-forwarded-for'] = forwarded ? `${forwarded}, ${p.sourceIp}` : p.sourceIp;
  headers['x-forwarded-port'] = String(p.localPort);
  headers['x-forwarded-proto'] = 'http';
  headers['x-amzn-trace-id'] ??= traceId(p.now, p.requestId);

  const host = headers.host ?? 'localhost';
  const dot = host.indexOf('.');
  const requestContext: APIGatewayProxyEventV2['requestContext'] = {
    accountId: ACCOUNT_ID,
    apiId: API_ID,
    domainName: host,
    domainPrefix: dot === -1 ? host : host.slice(0, dot),
    http: {
      method: p.method,
      path: p.rawPath,
      protocol: `HTTP/${p.httpVersion}`,
      sourceIp: p.sourceIp,
      userAgent: headers['user-agent'] ?? '',
    },
    requestId: p.requestId,
    routeKey: p.routeKey,
    stage: '$default',
    time: requestTime(p.now),
    timeEpoch: p.now,
  };
  // Same key order as API Gateway; absent parts are left out, as API Gateway does.
  const event = { version: '2.0', routeKey: p.routeKey, rawPath: p.rawPath, rawQueryString: p.rawQueryString } as APIGatewayProxyEventV2;
  if (cookies) event.cookies = cookies;
  event.headers = headers;
  const query = parseQuery(p.rawQueryString);
  if (query) event.queryStringParameters = query;
  event.requestContext = requestContext;
  if (p.pathParameters) event.pathParameters = p.pathParameters;
  if (p.body && p.body.length > 0) {
    const text = isTextContentType(headers['content-type']);
    event.body = p.body.toString(text ? 'utf8' : 'base64');
    event.isBase64Encoded = !text;
  } else {
    event.isBase64Encoded = false;
  }
  return event;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Result -> response                                                                                           */
/* ------------------------------------------------------------------------------------------------------------ */

interface HttpAnswer {
  readonly statusCode: number;
  readonly headers: OutgoingHttpHeaders;
  readonly body: Buffer | string;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How API Gateway reads a payload-2.0 result; throws on a malformed one (answered as 500). */
export function resultToAnswer(result: unknown): HttpAnswer {
  if (!isRecord(result) || !('statusCode' in result)) {
    // No statusCode: 200, JSON; a string is the body as is, anything else is serialised.
    const body = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null');
    return { statusCode: 200, headers: { ...JSON_HEADERS }, body };
  }
  const status = result.statusCode;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) {
    throw new Error(`malformed Lambda proxy response: statusCode ${String(status)}`);
  }
  const headers: OutgoingHttpHeaders = {};
  if (result.headers !== undefined && result.headers !== null) {
    if (!isRecord(result.headers)) throw new Error('malformed Lambda proxy response: headers is not an object');
    for (const [name, value] of Object.entries(result.headers)) {
      if (value === undefined || value === null) continue;
      headers[name.toLowerCase()] = String(value);
    }
  }
  if (isRecord(result.multiValueHeaders)) {
    for (const [name, values] of Object.entries(result.multiValueHeaders)) {
      if (!Array.isArray(values)) continue;
      const key = name.toLowerCase();
      const existing = headers[key];
      const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
      headers[key] = [...list, ...values.map(String)];
    }
  }
  if (Array.isArray(result.cookies) && result.cookies.length > 0) {
    const existing = headers['set-cookie'];
    const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
    headers['set-cookie'] = [...list, ...result.cookies.map(String)];
  }
  let body: Buffer | string = '';
  if (result.body !== undefined && result.body !== null) {
    if (typeof result.body !== 'string') throw new Error('malformed Lambda proxy response: body is not a string');
    body = result.isBase64Encoded === true ? Buffer.from(result.body, 'base64') : result.body;
  }
  return { statusCode: status, headers, body };
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Server                                                                                                       */
/* ------------------------------------------------------------------------------------------------------------ */

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function defaultPort(): number {
  const fromEnv = process.env.PORT;
  if (fromEnv !== undefined && fromEnv !== '' && /^\d+$/.test(fromEnv)) return Number(fromEnv);
  return 3000;
}

export function httpFunctionsFromDefinition(): HttpFunction[] {
  return API_FUNCTIONS.map((f) => ({ name: f.name, routes: f.routes, entry: f.entry }));
}

export async function startHttpServer(options: StartHttpServerOptions = {}): Promise<LocalHttpServer> {
  const log = options.log ?? (() => undefined);
  const rootDir = options.rootDir ?? REPO_ROOT;
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  const logRequests = options.logRequests ?? false;
  const functions = options.functions ?? httpFunctionsFromDefinition();
  const routes: Route[] = [];
  for (const fn of functions) {
    const slot = new FunctionSlot(fn, rootDir, log);
    for (const key of fn.routes) routes.push(compileRoute(key, slot));
  }
  const router = new Router(routes);
  const host = options.host ?? '127.0.0.1';
  let localPort = 0;

  const send = (res: ServerResponse, answer: HttpAnswer, requestId: string): void => {
    if (res.headersSent || res.destroyed) return;
    const headers = answer.headers;
    headers['apigw-requestid'] = requestId;
    headers['content-length'] = Buffer.byteLength(answer.body);
    res.writeHead(answer.statusCode, headers);
    res.end(answer.body);
  };
  const message = (statusCode: number, text: string, extra?: Record<string, string>): HttpAnswer => ({
    statusCode,
    headers: { ...JSON_HEADERS },
    body: JSON.stringify({ message: text, ...extra }),
  });

  const dispatch = async (
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer | undefined,
    requestId: string,
    started: number,
  ): Promise<number> => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPathEncoded = q === -1 ? url : url.slice(0, q);
    const rawQueryString = q === -1 ? '' : url.slice(q + 1);
    const rawPath = decodePercent(rawPathEncoded);
    const method = req.method ?? 'GET';
    const found = router.match(method, rawPath);
    if (!found) {
      send(res, message(404, 'Not Found'), requestId);
      return 404;
    }
    const slot = found.route.slot;
    let handler = slot.handler;
    if (!handler) {
      try {
        handler = await slot.load();
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        send(res, message(502, 'Internal Server Error', { error: `handler of ${slot.fn.name} failed to load: ${oneLine(why)}` }), requestId);
        return 502;
      }
    }
    const event = buildEvent({
      method,
      rawHeaders: req.rawHeaders,
      httpVersion: req.httpVersion,
      sourceIp: sourceIpOf(req),
      localPort,
      body,
      routeKey: found.route.routeKey,
      pathParameters: found.pathParameters,
      rawPath,
      rawQueryString,
      requestId,
      now: started,
    });
    const deadline = started + timeoutMs;
    const context = lambdaContext(slot.fn.name, deadline);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), timeoutMs);
    });
    try {
      const result = await Promise.race([Promise.resolve().then(() => (handler as HttpHandler)(event, context)), timeout]);
      if (result === 'timeout') {
        log(`http: ${slot.fn.name} did not answer ${method} ${rawPath} within ${timeoutMs} ms`);
        send(res, message(503, 'Service Unavailable'), requestId);
        return 503;
      }
      const answer = resultToAnswer(result);
      send(res, answer, requestId);
      return answer.statusCode;
    } catch (error) {
      log(`http: ${slot.fn.name} failed on ${method} ${rawPath}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      send(res, message(500, 'Internal Server Error'), requestId);
      return 500;
    } finally {
      clearTimeout(timer);
    }
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const started = Date.now();
    const requestId = randomUUID();
    const finish = (status: number): void => {
      if (logRequests) log(`http: ${req.method ?? '?'} ${req.url ?? ''} -> ${status} (${Date.now() - started} ms)`);
    };
    const fail = (error: unknown): void => {
      log(`http: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) send(res, message(500, 'Internal Server Error'), requestId);
    };
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBody) {
      res.setHeader('connection', 'close');
      send(res, message(413, 'Request Entity Too Large'), requestId);
      req.resume();
      finish(413);
      return;
    }
    // Fast path: no body to read.
    if (declared === undefined && req.headers['transfer-encoding'] === undefined) {
      dispatch(req, res, undefined, requestId, started).then(finish, fail);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > maxBody) {
        tooLarge = true;
        chunks.length = 0;
        res.setHeader('connection', 'close');
        send(res, message(413, 'Request Entity Too Large'), requestId);
        finish(413);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooLarge) return;
      const body = chunks.length === 0 ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      dispatch(req, res, body, requestId, started).then(finish, fail);
    });
    req.on('error', () => undefined);
  };

  const server = createServer(onRequest);
  server.keepAliveTimeout = 60_000;
  const port = options.port ?? defaultPort();
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.removeListener('error', fail);
      ok();
    });
  });
  const address = server.address();
  localPort = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${localPort}`;
  log(`http: API on ${url} (${functions.length} functions, ${routes.length} routes)`);
  return {
    url,
    port: localPort,
    server,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

function lambdaContext(functionName: string, deadline: number): Context {
  const noop = (): void => undefined;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION ?? 'us-east-1'}:${ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: noop,
    fail: noop,
    succeed: noop,
  };
}
