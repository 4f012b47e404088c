/**
 * A local Solana node for the local stack and the tests: the Solana runtime (`litesvm`, its native binary inside
 * the npm package) in process, behind an HTTP JSON-RPC server on 127.0.0.1 answering the methods the gateway
 * calls (./solana/rpc.ts), single requests and batches. Blocks come every `blockTimeMs` (default 400 ms, a
 * mainnet slot), or by `mine()`; a blockhash expires 150 blocks after its block and a block is finalized 32
 * blocks after it, as on mainnet. In memory: its chain starts afresh on each start, like the local TRON node.
 *
 * At start: an SPL mint "USDT" (6 decimals) and a faucet keypair holding SOL and USDT (./solana/chain.ts).
 * Local-only endpoints, for `dev` helpers and tests in another process: `POST /_local/fund {address, lamports}`,
 * `POST /_local/mint {owner, amount}` (new USDT), `POST /_local/transfer {owner, amount}` (USDT from the
 * faucet), `POST /_local/mine {blocks}`; amounts as decimal strings of base units. `GET /health` answers `ok`.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { baseUnits, blockTimer, closeServer, listenOnLoopback, readText } from './node-server.js';
import { parse, parseNumberAndBigInt, stringify } from 'lossless-json';
import { SolanaRpcFault, createSolanaChain } from './solana/chain.js';
import type { SolanaChain, SolanaChainOptions } from './solana/chain.js';
import { solanaRpcMethods } from './solana/rpc.js';
import type { Logger } from './log.js';

export { keypairFromSecret, keypairFromSeed, randomKeypair, LAMPORTS_PER_SOL, MAINNET_USDT_MINT, USDT_DECIMALS } from './solana/chain.js';
export type { LocalKeypair, SolanaChain } from './solana/chain.js';

export interface SolanaNodeOptions extends SolanaChainOptions {
  /** 0 (default): a free port. */
  readonly port?: number;
  /** Produce blocks on a timer; false: only `mine()`. Default true. */
  readonly autoMine?: boolean;
}

/** The node: its chain (for assertions and helpers) and the RPC server in front of it. */
export interface SolanaNode extends Pick<
  SolanaChain,
  | 'mint'
  | 'decimals'
  | 'faucet'
  | 'head'
  | 'mine'
  | 'fund'
  | 'mintTo'
  | 'transferToken'
  | 'tokenBalance'
  | 'usdtBalance'
  | 'balance'
  | 'dropNextSends'
  | 'stats'
> {
  /** The JSON-RPC endpoint (`SOLANA_RPC_URL`). */
  readonly url: string;
  readonly port: number;
  readonly chain: SolanaChain;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 2 * 1024 * 1024;

const readBody = (req: IncomingMessage): Promise<string> => readText(req, MAX_BODY_BYTES, () => new SolanaRpcFault(-32600, 'request too large'));

/** `"123"` or 123 as a bigint of base units. */
const units = (value: unknown, what: string): bigint => baseUnits(value, what, 'base units', (message) => new Error(message));

export async function startSolanaNode(options: SolanaNodeOptions = {}): Promise<SolanaNode> {
  const blockTimeMs = options.blockTimeMs ?? 400;
  const chain = createSolanaChain(options);
  const methods = solanaRpcMethods(chain);

  const call = async (request: unknown): Promise<unknown> => {
    const r = request as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id = r && typeof r === 'object' && 'id' in r ? r.id : null;
    try {
      if (!r || typeof r !== 'object' || r.jsonrpc !== '2.0' || typeof r.method !== 'string') throw new SolanaRpcFault(-32600, 'Invalid request');
      const method = Object.hasOwn(methods, r.method) ? methods[r.method] : undefined;
      if (!method) throw new SolanaRpcFault(-32601, 'Method not found');
      const params = r.params === undefined ? [] : r.params;
      if (!Array.isArray(params)) throw new SolanaRpcFault(-32602, 'Invalid params: expected an array');
      return { jsonrpc: '2.0', result: await method(params), id };
    } catch (error) {
      const fault =
        error instanceof SolanaRpcFault ? error : new SolanaRpcFault(-32603, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
      return { jsonrpc: '2.0', error: { code: fault.code, message: fault.message, ...(fault.data === undefined ? {} : { data: fault.data }) }, id };
    }
  };

  const local = async (path: string, body: Record<string, unknown>): Promise<unknown> => {
    switch (path) {
      case '/_local/fund':
        return { signature: await chain.fund(String(body.address), units(body.lamports, 'lamports')) };
      case '/_local/mint':
        return { signature: await chain.mintTo(String(body.owner), units(body.amount, 'amount')) };
      case '/_local/transfer':
        return { signature: await chain.transferToken(String(body.owner), units(body.amount, 'amount')) };
      case '/_local/mine': {
        const block = chain.mine(Number(units(body.blocks ?? 1, 'blocks')));
        return { slot: block.slot, blockHeight: block.height };
      }
      default:
        return undefined;
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const reply = (status: number, value: unknown): void => {
      const text = stringify(value) ?? 'null';
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'GET' && path === '/health') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      return;
    }
    if (req.method !== 'POST') {
      reply(405, { error: 'POST a JSON-RPC request' });
      return;
    }
    readBody(req)
      .then(async (text) => {
        let body: unknown;
        try {
          body = parse(text, null, parseNumberAndBigInt);
        } catch {
          reply(200, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
          return;
        }
        if (path.startsWith('/_local/')) {
          try {
            const answer = await local(path, (body ?? {}) as Record<string, unknown>);
            if (answer === undefined) reply(404, { error: `no such endpoint: ${path}` });
            else reply(200, answer);
          } catch (error) {
            reply(400, { error: error instanceof Error ? error.message : String(error) });
          }
          return;
        }
        if (Array.isArray(body)) {
          if (body.length === 0) reply(200, { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null });
          else reply(200, await Promise.all(body.map(call)));
        } else {
          reply(200, await call(body));
        }
      })
      .catch((error: unknown) => reply(400, { error: error instanceof Error ? error.message : String(error) }));
  });

  const port = await listenOnLoopback(server, options.port);
  const stopMining = blockTimer(options.autoMine, blockTimeMs, () => chain.mine(1));

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    chain,
    mint: chain.mint,
    decimals: chain.decimals,
    faucet: chain.faucet,
    head: chain.head,
    mine: chain.mine,
    fund: chain.fund,
    mintTo: chain.mintTo,
    transferToken: chain.transferToken,
    tokenBalance: chain.tokenBalance,
    usdtBalance: chain.usdtBalance,
    balance: chain.balance,
    dropNextSends: chain.dropNextSends,
    stats: chain.stats,
    async close() {
      stopMining();
      await closeServer(server);
    },
  };
}

/** The local stack's Solana node (a block every 400 ms), logged. */
export async function startLocalSolana(port: number | undefined, log: Logger): Promise<SolanaNode> {
  const node = await startSolanaNode(port !== undefined ? { port } : {});
  log.info(`solana: local node at ${node.url} (litesvm; USDT mint ${node.mint}, faucet ${node.faucet.address})`);
  return node;
}

/** Adds the local Solana node to the handlers' environment: `SOLANA_RPC_URL`, and its mint as `USDTSOL` in `TOKEN_CONTRACTS`. */
export function solanaEnv(env: Record<string, string>, node: Pick<SolanaNode, 'url' | 'mint'>): void {
  env.SOLANA_RPC_URL = node.url;
  env.TOKEN_CONTRACTS = JSON.stringify({ ...(JSON.parse(env.TOKEN_CONTRACTS ?? '{}') as Record<string, string>), USDTSOL: node.mint });
}
