/**
 * A local TRON node behind the TronGrid-compatible HTTP API, for the local stack and the tests: the endpoints
 * the gateway uses (`/wallet/getnowblock`, `getblockbynum`, `getaccount`, `broadcasthex`,
 * `triggerconstantcontract`, `gettransactioninfobyid`, and `/v1/blocks/{n}/events`), answering in the shapes java-tron and TronGrid document.
 *
 * It checks what a real node checks of a broadcast: one signature recovering to the owner, TAPOS (the referenced
 * block exists), expiration (after the head, at most 24 h ahead), duplicates, and balances. It executes what
 * the gateway sends: TRX transfers, TRC-20 `transfer` on its tokens, and the forwarder factory's
 * `deployAndFlush(salts, token)` (each salt's TRON CREATE2 deposit address flushed to the treasury). Blocks are
 * produced every `blockTimeMs` (or by `mine()`), with timestamps advancing by `blockTimeMs` from the genesis
 * time, so expiry is deterministic in tests.
 *
 * Local-only endpoints, for `dev pay` and tests: `POST /_local/transfer {token, to, amount}` (a TRC-20 transfer
 * from the faucet, mined in the next block), `POST /_local/fund {address, amount}` (TRX, sun), `POST /_local/mine`.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { blockTimer, closeServer, listenOnLoopback } from './node-server.js';
import { tronApi } from './tron/api.js';
import { createTronChain } from './tron/chain.js';
import type { TronChain, TronChainOptions } from './tron/chain.js';

export interface TronNodeOptions extends TronChainOptions {
  readonly port?: number;
  /** Produce blocks on a timer; false: only `mine()`. Default true. */
  readonly autoMine?: boolean;
}

/** The node: its chain's state and the API server in front of it. */
export interface TronNode extends Pick<TronChain, 'mine' | 'head' | 'tokenBalance' | 'trxBalance' | 'transfer' | 'fund' | 'stats' | 'dropNextBroadcasts'> {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

export async function startTronNode(options: TronNodeOptions = {}): Promise<TronNode> {
  const blockTimeMs = options.blockTimeMs ?? 3000;
  const chain = createTronChain(options);
  const route = tronApi(chain);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const reply = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    body(req)
      .then((b) => {
        const answer = route(req.method ?? 'GET', url.pathname, url.searchParams, b);
        if (answer === undefined) reply(404, { Error: `no such endpoint: ${req.method} ${url.pathname}` });
        else reply(200, answer);
      })
      .catch((error: unknown) => reply(400, { Error: String(error) }));
  });
  const port = await listenOnLoopback(server, options.port);
  const stopMining = blockTimer(options.autoMine, blockTimeMs, () => chain.mine(1));

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    mine: chain.mine,
    head: chain.head,
    tokenBalance: chain.tokenBalance,
    trxBalance: chain.trxBalance,
    transfer: chain.transfer,
    fund: chain.fund,
    stats: chain.stats,
    dropNextBroadcasts: chain.dropNextBroadcasts,
    async close() {
      stopMining();
      await closeServer(server);
    },
  };
}
