import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { p2wpkh, SigHash, Transaction } from '@scure/btc-signer';
import { pubECDSA, randomPrivateKeyBytes } from '@scure/btc-signer/utils.js';
import { startBitcoinNode } from '../../../infra/local/bitcoin.js';
import type { BitcoinNode } from '../../../infra/local/bitcoin.js';
import { depositTag, depositWitnessScript, p2wshAddress, p2wshOutputScript } from '../../../shared/chain/btc/p2wsh.js';

/**
 * The local Bitcoin node answers as Esplora does: each answer has the keys and value types of a real answer of
 * blockstream.info recorded in test/fixtures/esplora (README there says where each comes from), recursively. Where
 * the data are the same on every network (the genesis coinbase and block), the values are compared too.
 */
const FIXTURES = join(process.cwd(), 'test/fixtures/esplora');
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
const NETWORK = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef };
const GENESIS_COINBASE = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';
const REGTEST_GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';

type Shape = string | Shape[] | { [key: string]: Shape };

/** Keys and value types, recursively; a list's shape is the set of its elements' shapes. */
function shape(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const seen = new Map<string, Shape>();
    for (const item of value) {
      const s = shape(item);
      seen.set(JSON.stringify(s), s);
    }
    return [...seen.keys()].sort().map((k) => seen.get(k) as Shape);
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, shape(record[k])]),
    );
  }
  return typeof value;
}

let node: BitcoinNode;
const getJson = async (path: string): Promise<unknown> => {
  const res = await fetch(`${node.url}${path}`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as unknown;
};
const post = async (path: string, body: string): Promise<string> => {
  const res = await fetch(`${node.url}${path}`, { method: 'POST', body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${text}`);
  return text;
};
const fund = async (address: string, amount: bigint): Promise<{ txid: string; vout: number }> => {
  const { txid } = JSON.parse(await post('/_local/fund', JSON.stringify({ address, amount: amount.toString() }))) as { txid: string };
  const tx = (await getJson(`/tx/${txid}`)) as { vout: { scriptpubkey_address?: string }[] };
  return { txid, vout: tx.vout.findIndex((o) => o.scriptpubkey_address === address) };
};

/** A confirmed spend of a gateway-style P2WSH deposit (one input with a witness script, two outputs). */
let p2wshSpend: string;
/** A confirmed P2WPKH spend (one input, two outputs). */
let p2wpkhSpend: string;
/** A P2WPKH address with an unconfirmed coin. */
let unconfirmedAddress: string;

beforeAll(async () => {
  node = await startBitcoinNode({ autoMine: false });
  const key = randomPrivateKeyBytes();
  const witnessScript = depositWitnessScript(depositTag('tenant-1', 'shape'), pubECDSA(key));
  const coin = await fund(p2wshAddress(witnessScript, 'local'), 500_000n);
  const wallet = p2wpkh(pubECDSA(key), NETWORK);
  const wcoin = await fund(wallet.address as string, 300_000n);
  node.mine(1);

  const tx = new Transaction({ allowUnknownOutputs: true });
  tx.addInput({ txid: coin.txid, index: coin.vout, witnessUtxo: { script: p2wshOutputScript(witnessScript), amount: 500_000n }, sequence: 0xfffffffd });
  tx.addOutput({ script: wallet.script, amount: 200_000n });
  tx.addOutput({ script: p2wshOutputScript(witnessScript), amount: 299_000n });
  const sighash = tx.preimageWitnessV0(0, witnessScript, SigHash.ALL, 500_000n);
  const sig = concatBytes(secp256k1.sign(sighash, key, { prehash: false, format: 'der', lowS: true }), Uint8Array.of(SigHash.ALL));
  tx.updateInput(0, { finalScriptWitness: [sig, Uint8Array.from(witnessScript)] });
  p2wshSpend = await post('/tx', Buffer.from(tx.extract()).toString('hex'));

  const spend = new Transaction();
  spend.addInput({ txid: wcoin.txid, index: wcoin.vout, witnessUtxo: { script: wallet.script, amount: 300_000n }, sequence: 0xfffffffe });
  spend.addOutput({ script: p2wpkh(pubECDSA(randomPrivateKeyBytes())).script, amount: 100_000n });
  spend.addOutput({ script: wallet.script, amount: 199_000n });
  spend.sign(key);
  spend.finalize();
  p2wpkhSpend = await post('/tx', spend.hex);
  node.mine(1);

  unconfirmedAddress = p2wpkh(pubECDSA(randomPrivateKeyBytes()), NETWORK).address as string;
  await fund(unconfirmedAddress, 10_000n);
});
afterAll(() => node?.close());

describe('the node answers in the shapes of recorded Esplora answers', () => {
  it('GET /tx/:txid of a P2WSH spend, with inner_witnessscript_asm', async () => {
    expect(shape(await getJson(`/tx/${p2wshSpend}`))).toEqual(shape(fixture('tx-p2wsh-input.json')));
  });

  it('GET /tx/:txid of a P2WPKH spend', async () => {
    expect(shape(await getJson(`/tx/${p2wpkhSpend}`))).toEqual(shape(fixture('tx-p2wpkh.json')));
  });

  it('GET /tx/:txid of the genesis coinbase: the recorded answer itself, but for the block it is in', async () => {
    const recorded = fixture('tx-genesis-coinbase.json') as Record<string, unknown>;
    expect(await getJson(`/tx/${GENESIS_COINBASE}`)).toEqual({
      ...recorded,
      status: { confirmed: true, block_height: 0, block_hash: REGTEST_GENESIS, block_time: 1296688602 },
    });
  });

  it('GET /block/:hash: the genesis block as recorded but for the regtest header fields, and any later block in the same shape', async () => {
    const recorded = fixture('block-genesis.json') as Record<string, unknown>;
    const genesis = (await getJson(`/block/${REGTEST_GENESIS}`)) as Record<string, unknown>;
    expect(genesis).toEqual({
      ...recorded,
      id: REGTEST_GENESIS,
      timestamp: 1296688602,
      mediantime: 1296688602,
      nonce: 2,
      bits: 0x207fffff,
      difficulty: 4.6565423739069247e-10,
    });
    const later = (await getJson(`/block/${node.chain.tip().hash}`)) as Record<string, unknown>;
    expect(typeof later.previousblockhash).toBe('string');
    expect(shape({ ...later, previousblockhash: null })).toEqual(shape(recorded));
  });

  it('GET /tx/:txid/status, confirmed and not', async () => {
    expect(shape(await getJson(`/tx/${p2wshSpend}/status`))).toEqual(shape(fixture('tx-status-confirmed.json')));
    const [pending] = (await getJson('/mempool/txids')) as string[];
    expect(await getJson(`/tx/${pending}/status`)).toEqual(fixture('tx-status-unconfirmed.json'));
  });

  it('GET /tx/:txid/outspend/:vout, spent and not', async () => {
    const spent = (await getJson(`/tx/${p2wshSpend}`)) as { vin: { txid: string; vout: number }[] };
    const input = spent.vin[0] as { txid: string; vout: number };
    expect(shape(await getJson(`/tx/${input.txid}/outspend/${input.vout}`))).toEqual(shape(fixture('outspend-spent.json')));
    expect(await getJson(`/tx/${p2wshSpend}/outspend/0`)).toEqual(fixture('outspend-unspent.json'));
  });

  it('GET /address/:address and /address/:address/utxo', async () => {
    const recorded = fixture('address.json');
    expect(shape(await getJson(`/address/${unconfirmedAddress}`))).toEqual(shape(recorded));
    expect(shape(await getJson(`/address/${unconfirmedAddress}/utxo`))).toEqual(shape(fixture('address-utxo-unconfirmed.json')));
  });

  it('GET /mempool, /mempool/recent and /fee-estimates (the same confirmation targets)', async () => {
    expect(shape(await getJson('/mempool'))).toEqual(shape(fixture('mempool.json')));
    expect(shape(await getJson('/mempool/recent'))).toEqual(shape(fixture('mempool-recent.json')));
    const estimates = (await getJson('/fee-estimates')) as Record<string, number>;
    const recorded = fixture('fee-estimates.json') as Record<string, number>;
    expect(Object.keys(estimates).sort()).toEqual(Object.keys(recorded).sort());
    expect(shape(estimates)).toEqual(shape(recorded));
  });
});
