import { randomUUID } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildEvent, resultToAnswer } from '../../../infra/local/http/event.js';
import type { webhookHandler } from './servers/lambda.js';

/** A recipe's server listening on 127.0.0.1 (a free port), its webhook route's URL. */
export interface Running {
  readonly url: string;
  close(): Promise<void>;
}

export async function listen(server: Server): Promise<Running> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/gateway`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The Lambda recipe behind a stand-in for API Gateway's HTTP API: the local stack's own event and answer mapping. */
export function apiGatewayFront(handler: ReturnType<typeof webhookHandler>): Server {
  return createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const event = buildEvent({
      method: req.method ?? 'GET',
      rawHeaders: req.rawHeaders,
      httpVersion: req.httpVersion,
      sourceIp: '127.0.0.1',
      localPort: req.socket.localPort ?? 0,
      body: Buffer.concat(chunks),
      routeKey: 'POST /webhooks/gateway',
      pathParameters: undefined,
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      requestId: randomUUID(),
      now: Date.now(),
    });
    const answer = resultToAnswer(await handler(event));
    res.writeHead(answer.statusCode, answer.headers).end(answer.body);
  });
}

export interface Answer {
  readonly status: number;
  readonly body: { error?: string } | null;
}

/**
 * POSTs `body` (its bytes as they are) in two writes, split inside its first `€` when it has one (as a network may
 * cut it), answering the status and the parsed answer, if any.
 */
export function post(url: string, headers: Readonly<Record<string, string | string[] | undefined>>, body: string | Buffer): Promise<Answer> {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const euro = bytes.indexOf(Buffer.from('€', 'utf8'));
  const cut = euro === -1 ? bytes.length >> 1 : euro + 1;
  const sent: Record<string, string | string[]> = { 'content-type': 'application/json' };
  const hopByHop = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !hopByHop.has(name.toLowerCase())) sent[name] = value;
  sent['content-length'] = String(bytes.length);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: sent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as { error?: string }) : null });
      });
    });
    req.on('error', reject);
    req.write(bytes.subarray(0, cut));
    setTimeout(() => req.end(bytes.subarray(cut)), 20);
  });
}

/** One request as it reached a recording front, and what the recipe behind it answered. */
export interface Recorded {
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly answer: Answer;
}

/**
 * A front that records each request's raw bytes and headers and hands them, unchanged, to its `target` (a recipe,
 * set once its secret is known), answering what it answers.
 */
export interface RecordingFront extends Running {
  readonly received: Recorded[];
  target: Running | null;
}

export async function recording(): Promise<RecordingFront> {
  const received: Recorded[] = [];
  const front = { target: null as Running | null };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const answer: Answer = front.target ? await post(front.target.url, req.headers, body) : { status: 503, body: { error: 'not_started' } };
    received.push({ headers: req.headers, body, answer });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body ? JSON.stringify(answer.body) : '');
  });
  const { url, close } = await listen(server);
  return Object.assign(front, {
    url,
    received,
    close: async () => {
      await close();
      await front.target?.close();
    },
  });
}
