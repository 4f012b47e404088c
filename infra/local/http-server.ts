/**
 * The local stand-in for API Gateway (HTTP API, payload format 2.0): every request becomes the v2 event
 * API Gateway would send (http/event.ts), routed like API Gateway routes (http/router.ts), and the same handler
 * modules CDK deploys answer it, through the Lambda runtime the event sources use too (lambda/runtime.ts).
 *
 * Behaviour copied from API Gateway, on purpose: 10 MB payload limit (413), 30 s integration timeout (503), an
 * exception is a 500 `{"message":"Internal Server Error"}`.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { API_FUNCTIONS } from '../definition.js';
import { JSON_HEADERS, buildEvent, decodePercent, resultToAnswer } from './http/event.js';
import type { HttpAnswer } from './http/event.js';
import { Router, compileRoute } from './http/router.js';
import type { Route } from './http/router.js';
import { LambdaTimeoutError, LocalLambda, REPO_ROOT } from './lambda/runtime.js';

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
  /** Region of the functions' ARNs (default: `AWS_REGION` env, else us-east-1). */
  readonly region?: string;
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

const MAX_BODY_BYTES = 10 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function sourceIpOf(req: IncomingMessage): string {
  const ip = req.socket.remoteAddress ?? '';
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
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
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const routes: Route<LocalLambda<HttpHandler>>[] = [];
  for (const fn of functions) {
    // A failed import is answered with 502 and tried again after 1 s.
    const lambda: LocalLambda<HttpHandler> = new LocalLambda<HttpHandler>(fn, {
      rootDir,
      region,
      retryLoadAfterMs: 1_000,
      onLoadError: (error) => log(`http: cannot load ${fn.entry} (function ${fn.name}): ${oneLine(error.message)}`),
    });
    for (const key of fn.routes) routes.push(compileRoute(key, lambda));
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

  const dispatch = async (req: IncomingMessage, res: ServerResponse, body: Buffer | undefined, requestId: string, started: number): Promise<number> => {
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
    const fn = found.route.target;
    let handler = fn.loaded;
    if (!handler) {
      try {
        handler = await fn.load();
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        send(res, message(502, 'Internal Server Error', { error: `handler of ${fn.name} failed to load: ${oneLine(why)}` }), requestId);
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
    try {
      const answer = resultToAnswer(await fn.invoke(handler, event, timeoutMs, started));
      send(res, answer, requestId);
      return answer.statusCode;
    } catch (error) {
      if (error instanceof LambdaTimeoutError) {
        log(`http: ${fn.name} did not answer ${method} ${rawPath} within ${timeoutMs} ms`);
        send(res, message(503, 'Service Unavailable'), requestId);
        return 503;
      }
      log(`http: ${fn.name} failed on ${method} ${rawPath}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      send(res, message(500, 'Internal Server Error'), requestId);
      return 500;
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
