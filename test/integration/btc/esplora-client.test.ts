import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EsploraClient, EsploraError } from '../../../shared/chain/btc/esplora.js';

/**
 * The Esplora client over real HTTP against a server answering as electrs does (status codes, plain-text and binary
 * answers, the 400 text of a refused broadcast; shapes from Blockstream esplora's API.md).
 */
const TXID = 'ab'.repeat(32);
const HASH = '00'.repeat(4) + 'cd'.repeat(28);
const routes: Record<string, { status?: number; body: string | Uint8Array; type?: string }> = {
  'GET /blocks/tip/height': { body: '812345' },
  'GET /blocks/tip/hash': { body: HASH.toUpperCase() },
  'GET /block-height/812345': { body: HASH },
  'GET /block-height/812346': { status: 404, body: 'Block not found' },
  [`GET /block/${HASH}/raw`]: { body: Uint8Array.of(1, 2, 3, 0xff), type: 'application/octet-stream' },
  [`GET /tx/${TXID}`]: {
    body: JSON.stringify({
      txid: TXID,
      version: 2,
      locktime: 0,
      size: 222,
      weight: 561,
      fee: 1410,
      vin: [
        { txid: 'cd'.repeat(32), vout: 1, prevout: null, scriptsig: '', scriptsig_asm: '', witness: ['30', '02'], is_coinbase: false, sequence: 4294967293 },
      ],
      vout: [
        {
          scriptpubkey: '0020' + 'ee'.repeat(32),
          scriptpubkey_asm: 'OP_0 OP_PUSHBYTES_32 ee',
          scriptpubkey_type: 'v0_p2wsh',
          scriptpubkey_address: 'bcrt1q...',
          value: 150000,
        },
      ],
      status: { confirmed: false },
    }),
  },
  [`GET /tx/${TXID}/status`]: { body: JSON.stringify({ confirmed: true, block_height: 812345, block_hash: HASH, block_time: 1700000000 }) },
  [`GET /tx/${'ef'.repeat(32)}`]: { status: 404, body: 'Transaction not found' },
  [`GET /tx/${TXID}/hex`]: { body: '0200AB' },
  [`GET /tx/${TXID}/outspend/0`]: { body: JSON.stringify({ spent: true, txid: 'cd'.repeat(32), vin: 0, status: { confirmed: false } }) },
  'GET /address/bcrt1qxyz/utxo': {
    body: JSON.stringify([{ txid: TXID, vout: 0, status: { confirmed: true, block_height: 5, block_hash: HASH, block_time: 1 }, value: 5000 }]),
  },
  'GET /address/bcrt1qxyz/txs/mempool': { body: '[]' },
  'GET /mempool/txids': { body: JSON.stringify([TXID]) },
  'GET /fee-estimates': { body: JSON.stringify({ '1': 87.882, '2': 87.882, '6': 68.285, '144': 1.027 }) },
  'GET /down/blocks/tip/height': { status: 503, body: 'unavailable' },
  'GET /odd/fee-estimates': { body: '{"2": "fast"}' },
  'GET /odd/blocks/tip/height': { body: '<html>' },
};
let server: Server;
let url: string;
const posted: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/tx') {
        posted.push(body);
        if (body.startsWith('00')) {
          res.writeHead(400).end('sendrawtransaction RPC error: {"code":-26,"message":"bad-txns-inputs-missingorspent"}');
        } else res.writeHead(200).end(TXID);
        return;
      }
      const route = routes[`${req.method} ${req.url}`] ?? { status: 404, body: 'Not found' };
      res.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'text/plain' }).end(route.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('EsploraClient', () => {
  it('reads the tip, block hashes (null past the tip) and raw blocks, counting its calls', async () => {
    const client = new EsploraClient(url);
    expect(await client.tipHeight()).toBe(812345);
    expect(await client.tipHash()).toBe(HASH);
    expect(await client.blockHash(812345)).toBe(HASH);
    expect(await client.blockHash(812346)).toBeNull();
    expect(await client.blockHash(-1)).toBeNull();
    expect([...(await client.blockRaw(HASH))]).toEqual([1, 2, 3, 0xff]);
    expect(client.calls).toBe(5);
  });

  it('reads transactions, their status, hex and outspends; an unknown transaction is null', async () => {
    const client = new EsploraClient(url);
    const tx = await client.tx(TXID);
    expect(tx).toMatchObject({ txid: TXID, vin: [{ sequence: 4294967293 }], vout: [{ value: 150000, scriptpubkey_type: 'v0_p2wsh' }] });
    expect(await client.tx('ef'.repeat(32))).toBeNull();
    expect(await client.txStatus(TXID)).toEqual({ confirmed: true, block_height: 812345, block_hash: HASH, block_time: 1700000000 });
    expect(await client.txHex(TXID)).toBe('0200ab');
    expect(await client.outspend(TXID, 0)).toMatchObject({ spent: true, vin: 0 });
    await expect(client.tx('not-a-txid')).rejects.toThrow(EsploraError);
  });

  it('reads addresses, the mempool and fee estimates', async () => {
    const client = new EsploraClient(url);
    expect(await client.addressUtxo('bcrt1qxyz')).toEqual([{ txid: TXID, vout: 0, value: 5000, status: expect.objectContaining({ confirmed: true }) }]);
    expect(await client.addressMempoolTxs('bcrt1qxyz')).toEqual([]);
    expect(await client.mempoolTxids()).toEqual([TXID]);
    expect(await client.feeEstimates()).toEqual({ '1': 87.882, '2': 87.882, '6': 68.285, '144': 1.027 });
  });

  it('broadcasts: the txid, or the node refusal as a message', async () => {
    const client = new EsploraClient(url);
    expect(await client.broadcast('0200ab')).toEqual({ ok: true, txid: TXID });
    expect(await client.broadcast('00ff')).toEqual({ ok: false, message: expect.stringContaining('bad-txns-inputs-missingorspent') });
    expect(posted).toEqual(['0200ab', '00ff']);
  });

  it('a server error or an unexpected answer throws; an unreachable API throws after its timeout', async () => {
    await expect(new EsploraClient(`${url}down`).tipHeight()).rejects.toMatchObject({ name: 'EsploraError', status: 503 });
    await expect(new EsploraClient(`${url}odd`).feeEstimates()).rejects.toThrow(/unexpected answer/);
    await expect(new EsploraClient(`${url}odd`).tipHeight()).rejects.toThrow(EsploraError);
    const unreachable = new EsploraClient('http://127.0.0.1:9', { timeoutMs: 500 });
    await expect(unreachable.tipHeight()).rejects.toThrow(EsploraError);
  });
});
