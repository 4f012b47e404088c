import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyTronBroadcast, TronGridChain } from '../../../shared/chain/engine/tron.js';
import { broadcastMessage, TronGridClient, TronGridError } from '../../../shared/chain/tron/grid.js';
import { tronScanChain } from '../../../shared/chain/tron/scanner.js';

/**
 * The TronGrid client and the scanner port against response fixtures written from the API's published
 * documentation (test/fixtures/trongrid), served by a local HTTP server that records what was asked.
 */
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../fixtures/trongrid/${name}.json`, import.meta.url), 'utf8'));

let server: Server;
let client: TronGridClient;
const asked: { method: string; path: string; body: Record<string, unknown>; apiKey: string | undefined }[] = [];
/** What each endpoint answers next (by path), set per test. */
const answers = new Map<string, string>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      asked.push({ method: req.method ?? '', path: `${url.pathname}${url.search}`, body, apiKey: req.headers['tron-pro-api-key'] as string | undefined });
      let name = answers.get(url.pathname);
      if (url.pathname === '/v1/blocks/61840405/events') name = url.searchParams.get('fingerprint') ? 'events-page2' : 'events-page1';
      if (url.pathname === '/wallet/getblockbynum') name = body.num === 61840405 ? 'getnowblock' : 'getaccount-new';
      if (url.pathname === '/broken') {
        res.writeHead(503).end('unavailable');
        return;
      }
      res.writeHead(name ? 200 : 404, { 'content-type': 'application/json' }).end(name ? JSON.stringify(fixture(name)) : '{"Error":"not found"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new TronGridClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { apiKey: 'test-key' });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  asked.length = 0;
  answers.clear();
});

describe('TronGrid client on documented responses', () => {
  it('reads the head block (number, id, parent, timestamp, transactions) with the API key header', async () => {
    answers.set('/wallet/getnowblock', 'getnowblock');
    const b = await client.nowBlock();
    expect([b.number, b.id.slice(0, 16), b.parentHash.slice(0, 16), b.timestamp, b.transactions.length]).toEqual([
      61840405,
      '0000000003af9c15',
      '0000000003af9c14',
      1716380136000,
      1,
    ]);
    expect(asked[0]).toMatchObject({ method: 'POST', path: '/wallet/getnowblock', apiKey: 'test-key' });
  });

  it('a block that does not exist is null ({} answer)', async () => {
    expect(await client.blockByNum(1)).toBeNull();
    expect(asked[0]?.body).toEqual({ num: 1, visible: true });
  });

  it("collects every page of a block's events by fingerprint", async () => {
    const events = await client.blockEvents(61840405);
    expect(events.map((e) => [e.event_index, e.event_name])).toEqual([
      [0, 'Transfer'],
      [1, 'Approval'],
      [2, 'Transfer'],
    ]);
    expect(asked.map((a) => a.path)).toEqual([
      '/v1/blocks/61840405/events?limit=200',
      '/v1/blocks/61840405/events?limit=200&fingerprint=2ZCw1ki9ncPn5Bn3F6Sds9LLBmYTqkPwkD5BqfYY',
    ]);
  });

  it('accounts: {} is an address never activated; otherwise the balance in sun', async () => {
    answers.set('/wallet/getaccount', 'getaccount-new');
    expect(await client.account('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8')).toEqual({ exists: false, balance: 0n });
    answers.set('/wallet/getaccount', 'getaccount');
    expect(await client.account('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8')).toEqual({ exists: true, balance: 120_000_000n });
  });

  it('transaction info: unknown until in a block; SUCCESS; FAILED (REVERT)', async () => {
    answers.set('/wallet/gettransactioninfobyid', 'gettransactioninfobyid-unknown');
    expect(await client.transactionInfo('77dd')).toBeNull();
    answers.set('/wallet/gettransactioninfobyid', 'gettransactioninfobyid-success');
    expect(await client.transactionInfo('77dd')).toMatchObject({ blockNumber: 61840420, fee: 13844850n, success: true });
    answers.set('/wallet/gettransactioninfobyid', 'gettransactioninfobyid-failed');
    expect(await client.transactionInfo('88ee')).toMatchObject({ blockNumber: 61840421, success: false });
    expect(asked[0]?.body).toEqual({ value: '77dd' });
  });

  it('broadcast answers are classified: accepted, duplicate, expired, refused (hex messages decoded)', async () => {
    const classify = (name: string) => classifyTronBroadcast(fixture(name) as never);
    expect(classify('broadcasthex-ok')).toEqual({ kind: 'accepted' });
    expect(classify('broadcasthex-dup')).toEqual({ kind: 'known', message: 'DUP_TRANSACTION_ERROR: dup transaction' });
    expect(classify('broadcasthex-expired')).toEqual({ kind: 'expired', message: 'TRANSACTION_EXPIRATION_ERROR: Transaction expired' });
    expect(classify('broadcasthex-sigerror')).toBeUndefined();
    expect(broadcastMessage(fixture('broadcasthex-sigerror') as never)).toBe('validate signature error');

    answers.set('/wallet/broadcasthex', 'broadcasthex-sigerror');
    await expect(new TronGridChain(client).broadcast('0a00')).rejects.toThrow('SIGERROR validate signature error');
    expect(asked[0]?.body).toEqual({ transaction: '0a00' });
  });

  it('a dry run (triggerconstantcontract): success, and a revert (FAILED, message decoded)', async () => {
    const call = { owner: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', data: '0xa9059cbb', callValue: 0n };
    answers.set('/wallet/triggerconstantcontract', 'triggerconstantcontract-ok');
    expect(await client.triggerConstant(call)).toEqual({ ok: true, energyUsed: 14650, message: '' });
    expect(asked[0]?.body).toEqual({ owner_address: call.owner, contract_address: call.contract, data: 'a9059cbb', call_value: 0, visible: true });
    answers.set('/wallet/triggerconstantcontract', 'triggerconstantcontract-revert');
    expect(await client.triggerConstant(call)).toEqual({ ok: false, energyUsed: 2873, message: 'REVERT opcode executed' });
  });

  it('an HTTP error or an unexpected shape is a TronGridError', async () => {
    await expect(new TronGridClient(`${client.baseUrl}/broken`).nowBlock()).rejects.toBeInstanceOf(TronGridError);
    answers.set('/wallet/getnowblock', 'getaccount');
    await expect(client.nowBlock()).rejects.toThrow(/Unexpected block answer/);
  });
});

describe('TRON scanner port on documented responses', () => {
  it("a block range: the catalogue token's Transfer events (all pages), in TVM hex, with the block id", async () => {
    const chain = tronScanChain(client);
    const logs = await chain.transferLogs(61840405, 61840405, ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t']);
    expect(logs).toEqual([
      {
        token: '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c',
        from: '0x5a4c6d0b0a0f8e7e5c9c2e4b8f7e0e2c0a1b2c3d',
        to: '0x6b3f3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b',
        value: 15_000_000n,
        txHash: 'a3f1c2e4b5d6978812345678900abcdef1234567890abcdef1234567890abcde',
        logIndex: 0,
        blockNumber: 61840405,
        blockHash: '0000000003af9c15b1a9d1f0a5d0b5c6f4e1f8b62b0f5e9d0c1f3a7c6d2e8b41',
      },
      expect.objectContaining({ to: '0x7c4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a', value: 2_000_000n, logIndex: 2 }),
    ]);
    // two event pages and one block read; nothing per watched address
    expect(chain.calls).toBeGreaterThan(0);
    expect(asked.map((a) => a.path.split('?')[0])).toEqual(['/v1/blocks/61840405/events', '/v1/blocks/61840405/events', '/wallet/getblockbynum']);
  });

  it('top-level TRX transfers of a block', async () => {
    const transfers = await tronScanChain(client).nativeTransfers(61840405, 61840405);
    expect(transfers).toEqual([
      {
        to: '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c',
        value: 2_500_000n,
        txHash: '9c2b4f0b7e4d5a6c1e8f3a2b0d9c7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d',
        blockNumber: 61840405,
        blockHash: '0000000003af9c15b1a9d1f0a5d0b5c6f4e1f8b62b0f5e9d0c1f3a7c6d2e8b41',
      },
    ]);
  });
});
