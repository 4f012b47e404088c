/**
 * A local Bitcoin node for the local stack and the tests: a small regtest chain of our own in memory (no bitcoind
 * exists here; ./btc/chain.ts) behind the Esplora HTTP API the gateway reads (`BTC_API_URL`; ./btc/api.ts), on
 * 127.0.0.1. Regtest parameters (`bcrt1` addresses, genesis `0f9188f1...2206`), a block every `blockTimeMs`
 * (default 2 s) or by `mine()`; blocks have real headers, merkle roots and coinbases but no ground proof of work.
 * Broadcasts are checked as bitcoind checks them: inputs unspent, amounts balanced, minimum relay fee 1 sat/vB,
 * signatures verified for P2WPKH and the gateway's `<tag> OP_DROP <pubkey> OP_CHECKSIG` P2WSH (other input types
 * refused, named), double spends refused, BIP125 replacement. In memory: the chain starts afresh on each start.
 *
 * Local-only endpoints, for `dev pay` and tests in another process (JSON bodies, amounts in satoshis as decimal
 * strings or numbers): `POST /_local/fund {address, amount}` (a faucet payment, in the mempool and mined in the
 * next block; answers `{txid}`), `POST /_local/mine {blocks}` (answers `{hashes, height}`),
 * `POST /_local/evict {txid}` (drops a mempool transaction and its descendants, as a node evicts; answers
 * `{evicted}`), `POST /_local/reorg {depth, drop?}` (the top `depth` blocks replaced by `depth + 1` new ones; their
 * transactions mined again but those in `drop` and their descendants, which vanish; answers `{disconnected,
 * mined, height}`), `POST /_local/fee-estimates {estimates}` (what `/fee-estimates` answers; `null` for the default
 * 1 sat/vB). `GET /health` answers `ok`.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { baseUnits, blockTimer, closeServer, listenOnLoopback, readText } from './node-server.js';
import { esploraApi, FEE_TARGETS } from './btc/api.js';
import type { EsploraAnswer } from './btc/api.js';
import { createBtcChain } from './btc/chain.js';
import type { BtcBlock, BtcChain, BtcChainOptions } from './btc/chain.js';
import { TxRefused } from './btc/verify.js';
import type { Logger } from './log.js';

export type { BtcBlock, BtcChain } from './btc/chain.js';
export { REGTEST } from './btc/script.js';

export interface BitcoinNodeOptions extends BtcChainOptions {
  /** 0 (default): a free port. */
  readonly port?: number;
  /** Time between blocks when mining on a timer; default 2000 ms. */
  readonly blockTimeMs?: number;
  /** Produce blocks on a timer; false: only `mine()`. Default true. */
  readonly autoMine?: boolean;
}

/** The node: its chain (for assertions and helpers) and the Esplora server in front of it. */
export interface BitcoinNode {
  /** The Esplora API's base URL (`BTC_API_URL`). */
  readonly url: string;
  readonly port: number;
  readonly chain: BtcChain;
  /** Mines `n` blocks now (default 1). */
  mine(n?: number): BtcBlock[];
  /** Pays `amount` satoshis from the faucet to `address`; answers the txid (mined in the next block). */
  fund(address: string, amount: bigint): string;
  /** Drops a mempool transaction and its descendants; answers the dropped txids. */
  evict(txid: string): string[];
  /** Replaces the top `depth` blocks by `depth + 1` new ones, without the `drop` transactions (BtcChain.reorg). */
  reorg(depth: number, drop?: readonly string[]): { disconnected: BtcBlock[]; mined: BtcBlock[] };
  /** What `/fee-estimates` answers from now on (undefined: 1 sat/vB for every target). */
  setFeeEstimates(estimates: Record<string, number> | undefined): void;
  /** Requests served, in total and per route (`GET /block/:hash/txids`...). */
  readonly requests: { total: number; byRoute: Record<string, number> };
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

const readBody = (req: IncomingMessage): Promise<string> => readText(req, MAX_BODY_BYTES, () => new TxRefused('request too large'));

/** `"123"` or 123 as a bigint of satoshis. */
const satoshis = (value: unknown, what: string): bigint => baseUnits(value, what, 'satoshis', (message) => new TxRefused(message));

/** The route's shape for counting: hashes, numbers and addresses as placeholders. */
function routeOf(method: string, path: string): string {
  const shape = path
    .replace(/^\/address\/[^/]+/, '/address/:address')
    .replace(/\/[0-9a-fA-F]{64}/g, '/:hash')
    .replace(/\/\d+/g, '/:n');
  return `${method} ${shape}`;
}

export async function startBitcoinNode(options: BitcoinNodeOptions = {}): Promise<BitcoinNode> {
  const blockTimeMs = options.blockTimeMs ?? 2000;
  const chain = createBtcChain(options);
  let estimates: Record<string, number> | undefined;
  const route = esploraApi(chain, { feeEstimates: () => estimates ?? Object.fromEntries(FEE_TARGETS.map((t) => [String(t), 1])) });
  const requests = { total: 0, byRoute: {} as Record<string, number> };

  const local = (path: string, body: Record<string, unknown>): unknown => {
    switch (path) {
      case '/_local/fund':
        if (typeof body.address !== 'string') throw new TxRefused('address must be a string');
        return { txid: chain.fund(body.address, satoshis(body.amount, 'amount')) };
      case '/_local/mine': {
        const blocks = chain.mine(Number(satoshis(body.blocks ?? 1, 'blocks')));
        return { hashes: blocks.map((b) => b.hash), height: chain.tip().height };
      }
      case '/_local/evict':
        return { evicted: chain.evict(String(body.txid)) };
      case '/_local/reorg': {
        const drop = Array.isArray(body.drop) ? body.drop.map(String) : [];
        const { disconnected, mined } = chain.reorg(Number(satoshis(body.depth ?? 1, 'depth')), drop);
        return { disconnected: disconnected.map((b) => b.hash), mined: mined.map((b) => b.hash), height: chain.tip().height };
      }
      case '/_local/fee-estimates':
        estimates = body.estimates === null || body.estimates === undefined ? undefined : (body.estimates as Record<string, number>);
        return { ok: true };
      default:
        return undefined;
    }
  };

  const send = (res: ServerResponse, answer: EsploraAnswer): void => {
    if ('json' in answer) {
      const body = JSON.stringify(answer.json);
      res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    } else if ('text' in answer) {
      res.writeHead(answer.status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(answer.text) });
      res.end(answer.text);
    } else {
      res.writeHead(answer.status, { 'content-type': 'application/octet-stream', 'content-length': answer.bytes.length });
      res.end(Buffer.from(answer.bytes));
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    requests.total++;
    const key = routeOf(method, path);
    requests.byRoute[key] = (requests.byRoute[key] ?? 0) + 1;
    if (method === 'GET' && path === '/health') {
      send(res, { status: 200, text: 'ok' });
      return;
    }
    readBody(req)
      .then((body) => {
        if (path.startsWith('/_local/') && method === 'POST') {
          let parsed: Record<string, unknown>;
          try {
            parsed = body.trim() === '' ? {} : (JSON.parse(body) as Record<string, unknown>);
          } catch {
            send(res, { status: 400, json: { error: 'the body must be JSON' } });
            return;
          }
          try {
            const answer = local(path, parsed ?? {});
            send(res, answer === undefined ? { status: 404, json: { error: `no such endpoint: ${path}` } } : { status: 200, json: answer });
          } catch (error) {
            if (!(error instanceof TxRefused)) throw error;
            send(res, { status: 400, json: { error: error.reason } });
          }
          return;
        }
        send(res, route(method, path, body) ?? { status: 404, text: `no such endpoint: ${method} ${path}` });
      })
      .catch((error: unknown) => send(res, { status: 500, text: error instanceof Error ? error.message : String(error) }));
  });

  const port = await listenOnLoopback(server, options.port);
  const stopMining = blockTimer(options.autoMine, blockTimeMs, () => chain.mine(1));

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    chain,
    mine: chain.mine,
    fund: chain.fund,
    evict: chain.evict,
    reorg: chain.reorg,
    setFeeEstimates(next) {
      estimates = next;
    },
    requests,
    async close() {
      stopMining();
      await closeServer(server);
    },
  };
}

/** The local stack's Bitcoin node (a block every 2 s), logged. */
export async function startLocalBitcoin(port: number | undefined, log: Logger): Promise<BitcoinNode> {
  const node = await startBitcoinNode(port !== undefined ? { port } : {});
  log.info(`bitcoin: local regtest node at ${node.url} (Esplora API; faucet ${node.chain.faucet.address}, height ${node.chain.tip().height})`);
  return node;
}

/** Adds the local Bitcoin node to the handlers' environment: `BTC_API_URL` and `BTC_NETWORK=local`. */
export function bitcoinEnv(env: Record<string, string>, node: Pick<BitcoinNode, 'url'>): void {
  env.BTC_API_URL = node.url;
  env.BTC_NETWORK = 'local';
}
