import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { p2wpkh, RawTx, Transaction } from '@scure/btc-signer';
import { isP2wshScript, parseBlock } from '../../../shared/chain/btc/block.js';
import { btcDepositSource } from '../../../shared/chain/btc/deposit-source.js';
import type { EsploraClient, EsploraStatus, EsploraTx } from '../../../shared/chain/btc/esplora.js';
import { depositAddress } from '../../../shared/chain/btc/p2wsh.js';

/**
 * Raw blocks read into outputs (shared/chain/btc/block.ts) and Bitcoin's DepositSource over the Esplora API
 * (shared/chain/btc/deposit-source.ts). Blocks are built here from transactions signed with @scure/btc-signer, the
 * merkle root computed here from btc-signer's own transaction ids; the genesis block is the real one.
 */
const REGTEST = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };
const GENESIS =
  '0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a29ab5f49ffff001d1dac2b7c' +
  '0101000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000';

const sha256d = (b: Uint8Array) => sha256(sha256(b));
const reversed = (b: Uint8Array) => Uint8Array.from(b).reverse();
const le32 = (n: number) => Uint8Array.of(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff);

const hotKey = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
const deposit = depositAddress('tenant-1', 'payment-1', hotKey, 'local');
const walletKey = secp256k1.utils.randomSecretKey();
const wallet = p2wpkh(secp256k1.getPublicKey(walletKey, true), REGTEST);

/** A P2WPKH spend signed by the test's wallet: to the deposit address and back to the wallet. */
function payment(seed: number, amount: bigint, sequence: number): Transaction {
  const tx = new Transaction();
  tx.addInput({ txid: sha256(Uint8Array.of(seed)), index: 0, witnessUtxo: { script: wallet.script, amount: 1_000_000n }, sequence });
  tx.addOutputAddress(deposit.address, amount, REGTEST);
  tx.addOutputAddress(wallet.address as string, 1_000_000n - amount - 500n, REGTEST);
  tx.sign(walletKey);
  tx.finalize();
  return tx;
}

function coinbase(height: number): Uint8Array {
  return RawTx.encode({
    version: 2,
    segwitFlag: false,
    inputs: [{ txid: new Uint8Array(32), index: 0xffffffff, finalScriptSig: Uint8Array.of(3, height & 0xff, 0, 0), sequence: 0xffffffff }],
    outputs: [{ amount: 5_000_000_000n, script: wallet.script }],
    witnesses: undefined,
    lockTime: 0,
  });
}

/** A block of these transactions (wire bytes), its merkle root from btc-signer's ids, and its hash. */
function block(txs: readonly Uint8Array[], previous = new Uint8Array(32)): { raw: Uint8Array; hash: string; ids: string[] } {
  const ids = txs.map((t) => Transaction.fromRaw(t, { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true }).id);
  let level: Uint8Array[] = ids.map((id) => reversed(hexToBytes(id)));
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(concatBytes(level[i] as Uint8Array, (level[i + 1] ?? level[i]) as Uint8Array)));
    level = next;
  }
  const header = concatBytes(le32(0x20000000), previous, level[0] as Uint8Array, le32(1_700_000_000), le32(0x207fffff), le32(7));
  const raw = concatBytes(header, Uint8Array.of(txs.length), ...txs);
  return { raw, hash: bytesToHex(reversed(sha256d(header))), ids };
}

const pay1 = payment(1, 150_000n, 0xfffffffd);
const pay2 = payment(2, 70_000n, 0xffffffff);
const built = block([coinbase(101), pay1.extract(), pay2.extract()]);

describe('raw Bitcoin blocks', () => {
  it('reads the real genesis block: its hash, merkle root and coinbase output', () => {
    const g = parseBlock(hexToBytes(GENESIS), '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f');
    expect(g).toMatchObject({
      merkleRoot: '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b',
      txids: ['4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b'],
      time: 1231006505,
    });
    expect(g.outputs.map((o) => o.value)).toEqual([5_000_000_000n]);
  });

  it('reads segwit transactions: ids without witnesses (as btc-signer computes them), every output, the merkle root checked', () => {
    const b = parseBlock(built.raw, built.hash);
    expect(b.hash).toBe(built.hash);
    expect(b.txids).toEqual(built.ids);
    expect(b.txids[1]).toBe(pay1.id);
    expect(b.outputs.map((o) => [o.txid, o.vout, o.value])).toEqual([
      [built.ids[0], 0, 5_000_000_000n],
      [pay1.id, 0, 150_000n],
      [pay1.id, 1, 849_500n],
      [pay2.id, 0, 70_000n],
      [pay2.id, 1, 929_500n],
    ]);
    expect(b.outputs.filter((o) => isP2wshScript(o.script)).map((o) => bytesToHex(o.script))).toEqual([
      bytesToHex(deposit.outputScript),
      bytesToHex(deposit.outputScript),
    ]);
  });

  it('refuses bytes that are not the block they claim: tampered, truncated, padded or of another hash', () => {
    // 70,000 sats paid to the deposit address made 70,001: the transaction's id, so the merkle root, no longer matches.
    const amount = Uint8Array.of(0x70, 0x11, 0x01, 0, 0, 0, 0, 0);
    const at = built.raw.findIndex((_, i) => amount.every((b, j) => built.raw[i + j] === b));
    expect(at).toBeGreaterThan(80);
    const tampered = Uint8Array.from(built.raw);
    tampered[at] = 0x71;
    expect(() => parseBlock(tampered)).toThrow(/merkle root/);
    expect(() => parseBlock(built.raw.subarray(0, built.raw.length - 3))).toThrow(/Truncated/);
    expect(() => parseBlock(concatBytes(built.raw, Uint8Array.of(0)))).toThrow(/after the last transaction/);
    expect(() => parseBlock(built.raw, 'ab'.repeat(32))).toThrow(/hashes to/);
  });
});

/** An Esplora client answering from memory, counting its calls. */
function fakeApi(
  blocks: ReadonlyMap<number, { raw: Uint8Array; hash: string }>,
  mempool: Record<string, EsploraTx[]>,
  statuses: Record<string, EsploraStatus | null>,
  txs: Record<string, EsploraTx | null>,
) {
  let calls = 0;
  const api = {
    get calls() {
      return calls;
    },
    tipHeight: async () => (calls++, Math.max(...blocks.keys())),
    blockHash: async (n: number) => (calls++, blocks.get(n)?.hash ?? null),
    blockRaw: async (hash: string) => {
      calls++;
      const b = [...blocks.values()].find((x) => x.hash === hash);
      if (!b) throw new Error('404');
      return b.raw;
    },
    addressMempoolTxs: async (a: string) => (calls++, mempool[a] ?? []),
    txStatus: async (t: string) => (calls++, statuses[t] ?? null),
    tx: async (t: string) => (calls++, txs[t] ?? null),
  };
  return api as unknown as EsploraClient;
}

const esploraTx = (txid: string, sequence: number, outputs: { address: string; value: number }[]): EsploraTx => ({
  txid,
  version: 2,
  locktime: 0,
  vin: [{ txid: 'cd'.repeat(32), vout: 0, is_coinbase: false, scriptsig: '', witness: [], sequence, prevout: null }],
  vout: outputs.map((o) => ({ scriptpubkey: '', scriptpubkey_type: 'v0_p2wsh', scriptpubkey_address: o.address, value: o.value })),
  status: { confirmed: false },
});

describe('btcDepositSource', () => {
  const second = block([coinbase(102)], hexToBytes(built.hash));
  const blocks = new Map([
    [101, built],
    [102, second],
  ]);

  it('reads each block once (hash and raw bytes: two calls) and reports its P2WSH outputs as deposits of the coin', async () => {
    const api = fakeApi(blocks, {}, {}, {});
    const source = btcDepositSource(api, 'local');
    expect([source.family, await source.head(), await source.block(101), await source.block(103)]).toEqual([
      'btc',
      102,
      { number: 101, hash: built.hash },
      null,
    ]);
    const before = api.calls;
    const outputs = await source.utxos?.outputs(101, 102);
    expect(api.calls - before).toBe(4);
    expect(outputs).toEqual([
      { token: '', to: deposit.address, value: 150_000n, txHash: pay1.id, logIndex: 0, blockNumber: 101, blockHash: built.hash },
      { token: '', to: deposit.address, value: 70_000n, txHash: pay2.id, logIndex: 0, blockNumber: 101, blockHash: built.hash },
    ]);
    expect(await source.tokenTransfers(101, 102, [])).toEqual([]);
  });

  it('finds an address in the mempool, replaceable when an input signals BIP125', async () => {
    const other = 'bcrt1qelsewhere';
    const api = fakeApi(
      blocks,
      {
        [deposit.address]: [
          esploraTx('01'.repeat(32), 0xfffffffd, [
            { address: other, value: 5 },
            { address: deposit.address, value: 20_000 },
          ]),
          esploraTx('02'.repeat(32), 0xffffffff, [{ address: deposit.address.toUpperCase(), value: 30_000 }]),
        ],
      },
      {},
      {},
    );
    const found = await btcDepositSource(api, 'local').mempool?.incoming(deposit.address);
    expect(found).toEqual([
      { txHash: '01'.repeat(32), index: 1, to: deposit.address, value: 20_000n, replaceable: true },
      { txHash: '02'.repeat(32), index: 0, to: deposit.address, value: 30_000n, replaceable: false },
    ]);
  });

  it('places a transaction: confirmed in its block, waiting in the mempool, or gone (unknown status, or unknown transaction)', async () => {
    const [inBlock, waiting, replaced, unknown] = ['0a', '0b', '0c', '0d'].map((b) => b.repeat(32)) as [string, string, string, string];
    const api = fakeApi(
      blocks,
      {},
      {
        [inBlock]: { confirmed: true, block_height: 101, block_hash: built.hash, block_time: 1 },
        [waiting]: { confirmed: false },
        // electrs answers an unconfirmed status for a transaction it does not know at all.
        [replaced]: { confirmed: false },
      },
      { [waiting]: esploraTx(waiting, 0xffffffff, []) },
    );
    const mempool = btcDepositSource(api, 'local').mempool;
    expect(await mempool?.place(inBlock)).toEqual({ state: 'confirmed', blockNumber: 101, blockHash: built.hash });
    expect(await mempool?.place(waiting)).toEqual({ state: 'mempool' });
    expect(await mempool?.place(replaced)).toEqual({ state: 'gone' });
    expect(await mempool?.place(unknown)).toEqual({ state: 'gone' });
  });
});
