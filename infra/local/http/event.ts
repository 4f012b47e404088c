/**
 * A request as the API Gateway HTTP API (payload format 2.0) event, and a handler's result as the HTTP answer
 * API Gateway makes of it:
 * - `rawPath` is the URL-decoded path and keeps its trailing slash; `rawQueryString` is as sent;
 *   `queryStringParameters` are decoded, repeated keys joined by ','; headers lower-cased, repeated ones
 *   joined by ','; the Cookie header moves to `cookies`.
 * - the body is a UTF-8 string only for text/*, application/json, application/xml and application/javascript;
 *   anything else (form bodies, multipart, no content type) is base64 with `isBase64Encoded: true`.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { OutgoingHttpHeaders } from 'node:http';
import { LOCAL_ACCOUNT_ID } from '../lambda/runtime.js';

const API_ID = 'local';

const TEXT_TYPES = new Set(['application/json', 'application/xml', 'application/javascript']);

/** API Gateway (HTTP API) passes these bodies as text; every other body is base64. */
export function isTextContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type.startsWith('text/') || TEXT_TYPES.has(type);
}

/** Percent-decoding that leaves malformed text as it is. */
export function decodePercent(text: string): string {
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
    accountId: LOCAL_ACCOUNT_ID,
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

export interface HttpAnswer {
  readonly statusCode: number;
  readonly headers: OutgoingHttpHeaders;
  readonly body: Buffer | string;
}

export const JSON_HEADERS = { 'content-type': 'application/json' } as const;

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
