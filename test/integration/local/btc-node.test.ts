import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { p2pk, p2pkh, p2sh, p2tr, p2wpkh, p2wsh, RawTx, SigHash, Transaction } from '@scure/btc-signer';
import { pubECDSA, pubSchnorr, randomPrivateKeyBytes } from '@scure/btc-signer/utils.js';
import { startBitcoinNode } from '../../../infra/local/bitcoin.js';
import type { BitcoinNode } from '../../../infra/local/bitcoin.js';
import { depositTag, depositWitnessScript, p2wshAddress, p2wshOutputScript } from '../../../shared/chain/btc/p2wsh.js';

/**
 * The local Bitcoin node (infra/local/bitcoin.ts) over HTTP, with a wallet this test owns (@scure/btc-signer and
 * noble, not the gateway's code): blocks and headers, funding, P2WPKH and tagged P2WSH spends, and every refusal
 * the gateway relies on (bad signatures, unverifiable script types, double spends, BIP125).
 */
const NETWORK = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };
const REGTEST_GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const RBF = 0xfffffffd;
const FINAL = 0xffffffff;

let node: BitcoinNode;

beforeAll(async () => {
  node = await startBitcoinNode({ autoMine: false });
});
afterAll(() => node?.close());

const get = async (path: string): Promise<{ status: number; text: string }> => {
  const res = await fetch(`${node.url}${path}`);
  return { status: res.status, text: await res.text() };
};
const getJson = async <T>(path: string): Promise<T> => {
  const res = await get(path);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
  return JSON.parse(res.text) as T;
};
const broadcast = async (hex: string): Promise<{ status: number; text: string }> => {
  const res = await fetch(`${node.url}/tx`, { method: 'POST', body: hex });
  return { status: res.status, text: await res.text() };
};
const local = async <T>(path: string, body: unknown): Promise<T> => {
  const res = await fetch(`${node.url}/_local/${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`/_local/${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const reversed = (h: string) => Uint8Array.from(Buffer.from(h, 'hex')).reverse();
const dsha = (b: Uint8Array) => sha256(sha256(b));

interface Coin {
  txid: string;
  vout: number;
  value: bigint;
}

/** A P2WPKH wallet. */
function wpkhWallet() {
  const key = randomPrivateKeyBytes();
  const pay = p2wpkh(pubECDSA(key), NETWORK);
  return { key, address: pay.address as string, script: pay.script };
}

/** A gateway-style deposit address: P2WSH over `<tag> OP_DROP <pubkey> OP_CHECKSIG`, signed by hand (BIP143 + DER). */
function taggedWallet(reference: string) {
  const key = randomPrivateKeyBytes();
  const witnessScript = depositWitnessScript(depositTag('tenant-1', reference), pubECDSA(key));
  return { key, witnessScript, address: p2wshAddress(witnessScript, 'local'), script: p2wshOutputScript(witnessScript) };
}

/** Funds `address` from the node's faucet over HTTP; the coin it made. */
async function fund(address: string, sats: bigint): Promise<Coin> {
  const { txid } = await local<{ txid: string }>('fund', { address, amount: sats.toString() });
  const tx = await getJson<{ vout: { scriptpubkey_address?: string; value: number }[] }>(`/tx/${txid}`);
  const vout = tx.vout.findIndex((o) => o.scriptpubkey_address === address && BigInt(o.value) === sats);
  expect(vout).toBeGreaterThanOrEqual(0);
  return { txid, vout, value: sats };
}

/** Spends `coin` of a P2WPKH wallet to `outputs` (btc-signer signs). */
function spendWpkh(w: ReturnType<typeof wpkhWallet>, coins: Coin[], outputs: { script: Uint8Array; amount: bigint }[], sequence = FINAL): Transaction {
  const tx = new Transaction({ allowUnknownOutputs: true });
  for (const c of coins) tx.addInput({ txid: c.txid, index: c.vout, witnessUtxo: { script: w.script, amount: c.value }, sequence });
  for (const o of outputs) tx.addOutput(o);
  tx.sign(w.key);
  tx.finalize();
  return tx;
}

/** Spends a tagged P2WSH coin: the BIP143 sighash from btc-signer, the signature from noble (low S, DER + SIGHASH_ALL). */
function spendTagged(
  w: ReturnType<typeof taggedWallet>,
  coin: Coin,
  outputs: { script: Uint8Array; amount: bigint }[],
  mutate?: (sig: Uint8Array) => Uint8Array,
) {
  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput({ txid: coin.txid, index: coin.vout, witnessUtxo: { script: w.script, amount: coin.value }, sequence: FINAL });
  for (const o of outputs) tx.addOutput(o);
  const sighash = tx.preimageWitnessV0(0, w.witnessScript, SigHash.ALL, coin.value);
  const der = secp256k1.sign(sighash, w.key, { prehash: false, format: 'der', lowS: true });
  const sig = concatBytes(mutate ? mutate(der) : der, Uint8Array.of(SigHash.ALL));
  tx.updateInput(0, { finalScriptWitness: [sig, Uint8Array.from(w.witnessScript)] });
  return tx;
}

/** The merkle root of a block's txids, computed here (Bitcoin's rule: an odd level repeats its last hash). */
function merkle(txids: string[]): string {
  let level: Uint8Array[] = txids.map(reversed);
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(dsha(concatBytes(level[i] as Uint8Array, (level[i + 1] ?? level[i]) as Uint8Array)));
    level = next;
  }
  return hex(Uint8Array.from(level[0] as Uint8Array).reverse());
}

describe('blocks', () => {
  it('starts from regtest genesis, and every header is 80 bytes whose double SHA-256 is the block hash and links to the previous block', async () => {
    expect(await get('/block-height/0')).toEqual({ status: 200, text: REGTEST_GENESIS });
    node.mine(2);
    const tip = Number((await get('/blocks/tip/height')).text);
    expect((await get('/blocks/tip/hash')).text).toBe((await get(`/block-height/${tip}`)).text);
    let previous: string | undefined;
    for (let h = 0; h <= tip; h += Math.max(1, Math.floor(tip / 6))) {
      const hash = (await get(`/block-height/${h}`)).text;
      const header = Buffer.from((await get(`/block/${hash}/header`)).text, 'hex');
      expect(header).toHaveLength(80);
      expect(hex(Uint8Array.from(dsha(header)).reverse())).toBe(hash);
      const block = await getJson<{
        id: string;
        height: number;
        previousblockhash: string | null;
        merkle_root: string;
        timestamp: number;
        nonce: number;
        bits: number;
      }>(`/block/${hash}`);
      expect(block).toMatchObject({ id: hash, height: h });
      expect(hex(Uint8Array.from(header.subarray(4, 36)).reverse())).toBe(h === 0 ? '0'.repeat(64) : block.previousblockhash);
      expect(hex(Uint8Array.from(header.subarray(36, 68)).reverse())).toBe(block.merkle_root);
      expect([header.readUInt32LE(68), header.readUInt32LE(72), header.readUInt32LE(76)]).toEqual([block.timestamp, block.bits, block.nonce]);
      if (h > 0 && previous !== undefined && h === 1) expect(block.previousblockhash).toBe(previous);
      previous = hash;
    }
    // Block times increase, and the premined blocks are dated up to the clock, not past it.
    const times = node.chain.blocks.map((b) => b.time);
    expect(times.every((t, i) => i === 0 || t > (times[i - 1] as number))).toBe(true);
    expect(times[110]).toBeLessThan(Date.now() / 1000);
    // Consecutive blocks chain.
    const a = await getJson<{ id: string }>(`/block/${(await get(`/block-height/${tip - 1}`)).text}`);
    const b = await getJson<{ previousblockhash: string }>(`/block/${(await get(`/block-height/${tip}`)).text}`);
    expect(b.previousblockhash).toBe(a.id);
    expect(await get('/block-height/999999')).toEqual({ status: 404, text: 'Block not found' });
    // The node counts what it serves, by route (for call-count figures).
    expect(node.requests.byRoute['GET /block-height/:n']).toBeGreaterThan(1);
    expect(node.requests.byRoute['GET /block/:hash/header']).toBeGreaterThan(1);
  });

  it('mines the mempool into the next block, with a merkle root equal to one computed independently and a raw block that parses', async () => {
    const payees = Array.from({ length: 4 }, () => wpkhWallet());
    const txids = [];
    for (const p of payees) txids.push((await local<{ txid: string }>('fund', { address: p.address, amount: 50_000 })).txid);
    expect(await getJson<string[]>('/mempool/txids')).toEqual(expect.arrayContaining(txids));
    const { hashes } = await local<{ hashes: string[] }>('mine', { blocks: 1 });
    const hash = hashes[0] as string;
    const blockTxids = await getJson<string[]>(`/block/${hash}/txids`);
    expect(blockTxids).toHaveLength(5);
    expect(blockTxids.slice(1)).toEqual(txids);
    const block = await getJson<{ merkle_root: string; tx_count: number; size: number }>(`/block/${hash}`);
    expect(block.merkle_root).toBe(merkle(blockTxids));
    expect(block.tx_count).toBe(5);
    expect(await getJson<string[]>('/mempool/txids')).toEqual([]);
    // The raw block: the header, the transaction count, then each transaction as /tx/:txid/hex serialises it.
    const raw = Buffer.from(await (await fetch(`${node.url}/block/${hash}/raw`)).arrayBuffer());
    expect(raw).toHaveLength(block.size);
    expect(raw.subarray(0, 80).toString('hex')).toBe((await get(`/block/${hash}/header`)).text);
    expect(raw[80]).toBe(5);
    let offset = 81;
    for (const txid of blockTxids) {
      const txHex = (await get(`/tx/${txid}/hex`)).text;
      expect(raw.subarray(offset, offset + txHex.length / 2).toString('hex')).toBe(txHex);
      offset += txHex.length / 2;
    }
    expect(offset).toBe(raw.length);
    // The coinbase: BIP34 height first in its script, subsidy plus fees, and a witness commitment.
    const coinbase = await getJson<{ vin: { is_coinbase: boolean }[]; vout: { scriptpubkey: string }[] }>(`/tx/${blockTxids[0]}`);
    expect(coinbase.vin[0]?.is_coinbase).toBe(true);
    expect(coinbase.vout[1]?.scriptpubkey.startsWith('6a24aa21a9ed')).toBe(true);
    const status = await getJson<{ confirmed: boolean; block_hash: string }>(`/tx/${txids[0]}/status`);
    expect(status).toMatchObject({ confirmed: true, block_hash: hash });
  });
});

describe('funding and spending', () => {
  it('funds a P2WPKH address (mempool, then mined) and accepts its signed spend', async () => {
    const w = wpkhWallet();
    const coin = await fund(w.address, 100_000n);
    expect(await getJson<unknown[]>(`/address/${w.address}/utxo`)).toEqual([
      { txid: coin.txid, vout: coin.vout, status: { confirmed: false }, value: 100_000 },
    ]);
    expect((await getJson<{ txid: string }[]>(`/address/${w.address}/txs/mempool`)).map((t) => t.txid)).toEqual([coin.txid]);
    node.mine(1);
    const [utxo] = await getJson<{ status: { confirmed: boolean; block_height: number } }[]>(`/address/${w.address}/utxo`);
    expect(utxo?.status).toMatchObject({ confirmed: true, block_height: node.chain.tip().height });
    const to = wpkhWallet();
    const tx = spendWpkh(w, [coin], [{ script: to.script, amount: 99_000n }]);
    expect(await broadcast(tx.hex)).toEqual({ status: 200, text: tx.id });
    // The same transaction again: already in the mempool, answered with its txid as bitcoind does.
    expect(await broadcast(tx.hex)).toEqual({ status: 200, text: tx.id });
    const seen = await getJson<{ fee: number; vin: { prevout: { value: number } }[]; weight: number }>(`/tx/${tx.id}`);
    expect(seen.fee).toBe(1_000);
    expect(seen.weight).toBe(tx.weight);
    expect(await getJson(`/tx/${coin.txid}/outspend/${coin.vout}`)).toEqual({ spent: true, txid: tx.id, vin: 0, status: { confirmed: false } });
    expect(await getJson(`/address/${w.address}/utxo`)).toEqual([]);
  });

  it('accepts a spend of the gateway P2WSH form (<tag> OP_DROP <pubkey> OP_CHECKSIG) signed over its BIP143 sighash', async () => {
    const w = taggedWallet('payment-1');
    expect(w.address.startsWith('bcrt1q')).toBe(true);
    const coin = await fund(w.address, 250_000n);
    node.mine(1);
    const to = wpkhWallet();
    const tx = spendTagged(w, coin, [{ script: to.script, amount: 249_000n }]);
    expect(await broadcast(hex(tx.extract()))).toEqual({ status: 200, text: tx.id });
    const seen = await getJson<{ vin: { prevout: { scriptpubkey_type: string }; inner_witnessscript_asm: string }[] }>(`/tx/${tx.id}`);
    expect(seen.vin[0]?.prevout.scriptpubkey_type).toBe('v0_p2wsh');
    expect(seen.vin[0]?.inner_witnessscript_asm).toMatch(/^OP_PUSHBYTES_32 [0-9a-f]{64} OP_DROP OP_PUSHBYTES_33 [0-9a-f]{66} OP_CHECKSIG$/);
  });

  it('refuses a bad signature, a high-S signature, a wrong key, and an amount above the inputs', async () => {
    const w = taggedWallet('payment-2');
    const coin = await fund(w.address, 80_000n);
    node.mine(1);
    const out = [{ script: wpkhWallet().script, amount: 79_000n }];
    const flipped = spendTagged(w, coin, out, (der) => {
      const copy = Uint8Array.from(der);
      copy[copy.length - 1] = (copy[copy.length - 1] as number) ^ 0x01;
      return copy;
    });
    const bad = await broadcast(hex(flipped.extract()));
    expect(bad.status).toBe(400);
    expect(bad.text).toBe(
      'sendrawtransaction RPC error: {"code":-26,"message":"mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)"}',
    );
    const highS = spendTagged(w, coin, out, (der) => {
      const sig = secp256k1.Signature.fromBytes(der, 'der');
      return new secp256k1.Signature(sig.r, N - sig.s).toBytes('der');
    });
    expect((await broadcast(hex(highS.extract()))).text).toContain('Non-canonical signature: S value is unnecessarily high');
    const other = taggedWallet('payment-2');
    const wrongKey = spendTagged({ ...w, key: other.key }, coin, out);
    expect((await broadcast(hex(wrongKey.extract()))).text).toContain('mandatory-script-verify-flag-failed');
    const tooMuch = spendTagged(w, coin, [{ script: out[0]!.script, amount: 80_001n }]);
    // btc-signer will not extract it: its bytes with the witness, as a careless wallet would send them.
    expect((await broadcast(hex(tooMuch.toBytes(true, true)))).text).toContain('bad-txns-in-belowout');
    const noFee = spendTagged(w, coin, [{ script: out[0]!.script, amount: 80_000n - 50n }]);
    expect((await broadcast(hex(noFee.extract()))).text).toMatch(/min relay fee not met, 50 < \d+/);
    expect(await getJson<string[]>('/mempool/txids')).not.toContain(flipped.id);
    expect((await get(`/tx/${flipped.id}`)).status).toBe(404);
  });

  it('refuses inputs whose script it cannot verify, naming the type (P2TR, P2PKH)', async () => {
    const key = randomPrivateKeyBytes();
    const tr = p2tr(pubSchnorr(key), undefined, NETWORK);
    const coin = await fund(tr.address as string, 60_000n);
    node.mine(1);
    const tx = new Transaction();
    tx.addInput({ txid: coin.txid, index: coin.vout, witnessUtxo: { script: tr.script, amount: coin.value }, tapInternalKey: pubSchnorr(key) });
    tx.addOutput({ script: wpkhWallet().script, amount: 59_000n });
    tx.sign(key);
    tx.finalize();
    expect(await broadcast(tx.hex)).toEqual({
      status: 400,
      text: 'sendrawtransaction RPC error: {"code":-26,"message":"unsupported input script type: p2tr"}',
    });

    const pkh = p2pkh(pubECDSA(key), NETWORK);
    const pkhCoin = await fund(pkh.address as string, 60_000n);
    const raw = RawTx.encode({
      version: 2,
      segwitFlag: false,
      inputs: [{ txid: Buffer.from(pkhCoin.txid, 'hex'), index: pkhCoin.vout, finalScriptSig: Uint8Array.of(0x00), sequence: FINAL }],
      outputs: [{ amount: 59_000n, script: wpkhWallet().script }],
      witnesses: undefined,
      lockTime: 0,
    });
    expect((await broadcast(hex(raw))).text).toContain('unsupported input script type: p2pkh');

    // A P2WSH spend whose witness script is not the gateway's form.
    const inner = p2pk(pubECDSA(key), NETWORK);
    const wsh = p2wsh(inner, NETWORK);
    const wshCoin = await fund(wsh.address as string, 60_000n);
    const other = new Transaction();
    other.addInput({ txid: wshCoin.txid, index: wshCoin.vout, witnessUtxo: { script: wsh.script, amount: wshCoin.value }, witnessScript: inner.script });
    other.addOutput({ script: wpkhWallet().script, amount: 59_000n });
    other.updateInput(0, { finalScriptWitness: [Uint8Array.of(0x01), Uint8Array.from(inner.script)] });
    expect((await broadcast(hex(other.extract()))).text).toContain('unsupported input script type: p2wsh');
  });

  it('accepts outputs of every standard form, shown with their Esplora types, assembly and addresses', async () => {
    const w = wpkhWallet();
    const coin = await fund(w.address, 200_000n);
    const pub = pubECDSA(randomPrivateKeyBytes());
    const forms = [
      p2pkh(pub, NETWORK),
      p2sh(p2wpkh(pub, NETWORK), NETWORK),
      p2wpkh(pub, NETWORK),
      p2wsh(p2pk(pub, NETWORK), NETWORK),
      p2tr(pubSchnorr(randomPrivateKeyBytes()), undefined, NETWORK),
    ];
    const opReturn = Uint8Array.of(0x6a, 0x04, 0xde, 0xad, 0xbe, 0xef);
    const tx = spendWpkh(w, [coin], [...forms.map((f) => ({ script: f.script, amount: 10_000n })), { script: opReturn, amount: 0n }]);
    expect((await broadcast(tx.hex)).status).toBe(200);
    const seen = await getJson<{ vout: { scriptpubkey_type: string; scriptpubkey_address?: string; scriptpubkey_asm: string }[] }>(`/tx/${tx.id}`);
    expect(seen.vout.map((o) => o.scriptpubkey_type)).toEqual(['p2pkh', 'p2sh', 'v0_p2wpkh', 'v0_p2wsh', 'v1_p2tr', 'op_return']);
    expect(seen.vout.map((o) => o.scriptpubkey_address)).toEqual([...forms.map((f) => f.address), undefined]);
    expect(seen.vout[0]?.scriptpubkey_asm).toMatch(/^OP_DUP OP_HASH160 OP_PUSHBYTES_20 [0-9a-f]{40} OP_EQUALVERIFY OP_CHECKSIG$/);
    expect(seen.vout[4]?.scriptpubkey_asm).toMatch(/^OP_PUSHNUM_1 OP_PUSHBYTES_32 [0-9a-f]{64}$/);
    expect(seen.vout[5]?.scriptpubkey_asm).toBe('OP_RETURN OP_PUSHBYTES_4 deadbeef');
    // The faucet pays those forms too.
    for (const f of forms) expect((await fund(f.address as string, 5_000n)).value).toBe(5_000n);
    // Dust is refused, as bitcoind's policy does (294 sat for P2WPKH).
    const dust = spendWpkh(w, [{ txid: tx.id, vout: 2, value: 10_000n }], [{ script: wpkhWallet().script, amount: 293n }]);
    expect((await broadcast(dust.hex)).text).toContain('"message":"dust"');
  });

  it('refuses the spend of a coinbase younger than 100 blocks', async () => {
    const faucetKey = randomPrivateKeyBytes();
    const young = await startBitcoinNode({ autoMine: false, premine: 101, splitFaucet: false, faucetKey });
    try {
      const faucet = p2wpkh(pubECDSA(faucetKey), NETWORK);
      const spendCoinbase = (height: number) => {
        const coinbase = young.chain.blocks[height]?.txs[0];
        const tx = new Transaction();
        tx.addInput({ txid: coinbase?.txid as string, index: 0, witnessUtxo: { script: faucet.script, amount: coinbase?.outputs[0]?.value as bigint } });
        tx.addOutput({ script: faucet.script, amount: (coinbase?.outputs[0]?.value as bigint) - 1_000n });
        tx.sign(faucetKey);
        tx.finalize();
        return tx.hex;
      };
      const res = await fetch(`${young.url}/tx`, { method: 'POST', body: spendCoinbase(3) });
      expect(await res.text()).toContain('bad-txns-premature-spend-of-coinbase');
      expect((await fetch(`${young.url}/tx`, { method: 'POST', body: spendCoinbase(1) })).status).toBe(200);
    } finally {
      await young.close();
    }
  });

  it('refuses what does not parse and inputs that do not exist', async () => {
    expect(await broadcast('00zz')).toMatchObject({ status: 400 });
    expect((await broadcast('0200000000')).text).toContain('"code":-22');
    const w = wpkhWallet();
    const ghost = spendWpkh(w, [{ txid: 'ab'.repeat(32), vout: 0, value: 10_000n }], [{ script: w.script, amount: 9_000n }]);
    expect(await broadcast(ghost.hex)).toEqual({ status: 400, text: 'sendrawtransaction RPC error: {"code":-25,"message":"bad-txns-inputs-missingorspent"}' });
    expect(await get(`/tx/${'cd'.repeat(32)}`)).toEqual({ status: 404, text: 'Transaction not found' });
  });
});

describe('double spends and BIP125', () => {
  it('refuses a second spend of a coin spent by a non-replaceable mempool transaction, even paying more', async () => {
    const w = wpkhWallet();
    const coin = await fund(w.address, 100_000n);
    node.mine(1);
    const first = spendWpkh(w, [coin], [{ script: wpkhWallet().script, amount: 99_000n }], 0xfffffffe);
    expect((await broadcast(first.hex)).status).toBe(200);
    const second = spendWpkh(w, [coin], [{ script: wpkhWallet().script, amount: 90_000n }], RBF);
    expect(await broadcast(second.hex)).toEqual({ status: 400, text: 'sendrawtransaction RPC error: {"code":-26,"message":"txn-mempool-conflict"}' });
    expect(await getJson<string[]>('/mempool/txids')).toContain(first.id);
    node.mine(1);
    // Once mined, the coin is gone.
    expect((await broadcast(second.hex)).text).toContain('bad-txns-inputs-missingorspent');
    expect(await getJson(`/tx/${first.id}/status`)).toMatchObject({ confirmed: true });
  });

  it('replaces a signalling transaction and its descendants with one paying more, and refuses a replacement paying too little', async () => {
    const w = wpkhWallet();
    const coin = await fund(w.address, 100_000n);
    node.mine(1);
    const child = wpkhWallet();
    const original = spendWpkh(w, [coin], [{ script: child.script, amount: 99_000n }], RBF);
    expect((await broadcast(original.hex)).status).toBe(200);
    const descendant = spendWpkh(child, [{ txid: original.id, vout: 0, value: 99_000n }], [{ script: wpkhWallet().script, amount: 98_000n }]);
    expect((await broadcast(descendant.hex)).status).toBe(200);
    // Fees replaced: 1,000 + 1,000. A higher rate but not the replaced fees plus its own relay fee: refused.
    const cheap = spendWpkh(w, [coin], [{ script: wpkhWallet().script, amount: 98_100n }], RBF);
    const refused = await broadcast(cheap.hex);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(`insufficient fee, rejecting replacement ${cheap.id}, less fees than conflicting txs; 1900 < 2000`);
    // A lower rate than the transaction it replaces (900 against 1,000 sat over about the same size; the same fee
    // would not do, as a signature of 71 or 72 bytes moves the size by one): refused on the feerate.
    const lowerRate = spendWpkh(w, [coin], [{ script: wpkhWallet().script, amount: 99_100n }], RBF);
    expect((await broadcast(lowerRate.hex)).text).toContain('new feerate');
    // Adding an unconfirmed input the replaced transaction did not spend from: refused (BIP125 rule 2).
    const extra = await fund(w.address, 20_000n);
    const adds = spendWpkh(w, [coin, extra], [{ script: wpkhWallet().script, amount: 110_000n }], RBF);
    expect((await broadcast(adds.hex)).text).toContain(`replacement-adds-unconfirmed, replacement ${adds.id} adds unconfirmed input, idx 1`);
    const better = spendWpkh(w, [coin], [{ script: wpkhWallet().script, amount: 97_000n }], RBF);
    expect(await broadcast(better.hex)).toEqual({ status: 200, text: better.id });
    const mempool = await getJson<string[]>('/mempool/txids');
    expect(mempool).toContain(better.id);
    expect(mempool).not.toContain(original.id);
    expect(mempool).not.toContain(descendant.id);
    expect((await get(`/tx/${original.id}`)).status).toBe(404);
    expect((await get(`/tx/${descendant.id}`)).status).toBe(404);
    expect(await getJson(`/tx/${coin.txid}/outspend/${coin.vout}`)).toMatchObject({ spent: true, txid: better.id });
    node.mine(1);
    expect(await getJson(`/tx/${better.id}/status`)).toMatchObject({ confirmed: true });
  });

  it('evicts a mempool transaction and its descendants on /_local/evict', async () => {
    const w = wpkhWallet();
    const coin = await fund(w.address, 70_000n);
    // Another faucet payment: its own confirmed coin, not the first one's change, so it stays.
    const other = await fund(wpkhWallet().address, 70_000n);
    const child = spendWpkh(w, [coin], [{ script: wpkhWallet().script, amount: 69_000n }]);
    expect((await broadcast(child.hex)).status).toBe(200);
    const { evicted } = await local<{ evicted: string[] }>('evict', { txid: coin.txid });
    expect(evicted.sort()).toEqual([coin.txid, child.id].sort());
    expect(await getJson<string[]>('/mempool/txids')).toEqual([other.txid]);
    expect((await get(`/tx/${coin.txid}`)).status).toBe(404);
    expect(await getJson(`/tx/${coin.txid}/status`)).toEqual({ confirmed: false });
    expect(await getJson(`/address/${w.address}/utxo`)).toEqual([]);
  });
});

describe('reorgs', () => {
  it('replaces the top blocks by a longer branch: new hashes at the same heights, transactions mined again, a dropped one gone with its descendants', async () => {
    const kept = await fund(wpkhWallet().address, 40_000n);
    const w = wpkhWallet();
    const dropped = await fund(w.address, 30_000n);
    node.mine(1);
    const child = spendWpkh(w, [dropped], [{ script: wpkhWallet().script, amount: 29_000n }]);
    expect((await broadcast(child.hex)).status).toBe(200);
    node.mine(1);
    const top = node.chain.tip().height;
    const before = [(await get(`/block-height/${top - 1}`)).text, (await get(`/block-height/${top}`)).text];

    const answer = await local<{ disconnected: string[]; mined: string[]; height: number }>('reorg', { depth: 2, drop: [dropped.txid] });
    expect(answer.disconnected).toEqual(before);
    expect(answer.mined).toHaveLength(3);
    expect(answer.height).toBe(top + 1);
    expect((await get(`/block-height/${top - 1}`)).text).toBe(answer.mined[0]);
    expect((await get(`/block-height/${top - 1}`)).text).not.toBe(before[0]);
    const first = await getJson<{ previousblockhash: string }>(`/block/${answer.mined[0]}`);
    expect(first.previousblockhash).toBe((await get(`/block-height/${top - 2}`)).text);
    expect(await getJson(`/tx/${kept.txid}/status`)).toMatchObject({ confirmed: true, block_height: top - 1, block_hash: answer.mined[0] });
    expect((await get(`/tx/${dropped.txid}`)).status).toBe(404);
    expect((await get(`/tx/${child.id}`)).status).toBe(404);
    expect(await getJson(`/address/${w.address}/utxo`)).toEqual([]);
    // The replaced blocks are still known, out of the best chain, as electrs shows stale blocks.
    expect(await getJson(`/block/${before[0]}/status`)).toEqual({ in_best_chain: false });
    expect(await getJson(`/block/${answer.mined[2]}/status`)).toEqual({ in_best_chain: true, height: top + 1 });
    expect(await getJson(`/block/${answer.mined[0]}/status`)).toEqual({ in_best_chain: true, height: top - 1, next_best: answer.mined[1] });
  });
});

describe('fee estimates', () => {
  it('answers a sat/vB rate per confirmation target, as esplora does, and what a test sets', async () => {
    const estimates = await getJson<Record<string, number>>('/fee-estimates');
    expect(Object.keys(estimates)).toEqual(expect.arrayContaining(['1', '2', '3', '6', '144', '504', '1008']));
    for (const [target, rate] of Object.entries(estimates)) {
      expect(target).toMatch(/^\d+$/);
      expect(typeof rate).toBe('number');
      expect(rate).toBeGreaterThanOrEqual(1);
    }
    await local('fee-estimates', { estimates: { '1': 25.5, '6': 10 } });
    expect(await getJson('/fee-estimates')).toEqual({ '1': 25.5, '6': 10 });
    await local('fee-estimates', { estimates: null });
    expect((await getJson<Record<string, number>>('/fee-estimates'))['1']).toBe(1);
  });
});
