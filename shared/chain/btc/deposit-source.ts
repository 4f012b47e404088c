import { bech32 } from '@scure/base';
import type { DepositSource, MempoolOutput, TokenTransfer, TxPlace } from '../../usecases/deposits/ports.js';
import { isP2wshScript, parseBlock } from './block.js';
import type { EsploraClient } from './esplora.js';
import { BTC_HRP, type BtcNetwork } from './p2wsh.js';

/**
 * Bitcoin's DepositSource (family `btc`) over an Esplora-compatible API (shared/chain/btc/esplora.ts):
 * - `utxos.outputs(from, to)`: each block read ONCE, whatever the number of open payments: its hash
 *   (`/block-height/:h`) and its raw bytes (`/block/:hash/raw`), two calls a block; the block's merkle root and hash
 *   are checked (block.ts) and its P2WSH outputs (every deposit address is one) reported as transfers of the coin
 *   (`token` '', `logIndex` the output's index), to be matched against the deposit-address index;
 * - `mempool.incoming(address)`: the address's unconfirmed transactions (`/address/:a/txs/mempool`), each output
 *   paying it, `replaceable` when an input's sequence signals BIP125 (below 0xfffffffe);
 * - `mempool.place(txid)`: `/tx/:txid/status`; an unconfirmed answer is checked with `/tx/:txid`, since electrs
 *   answers `{confirmed: false}` for a transaction it does not know at all: 404 there is `gone` (replaced, evicted).
 * Bitcoin has no tokens: `tokenTransfers` is always empty.
 */

/** The first sequence number that does not signal replaceability (BIP125: any input below it opts in). */
const NON_REPLACEABLE_SEQUENCE = 0xfffffffe;

export function btcDepositSource(client: EsploraClient, network: BtcNetwork): DepositSource {
  const hrp = BTC_HRP[network];
  const addressOf = (script: Uint8Array): string => bech32.encode(hrp, [0, ...bech32.toWords(script.subarray(2))]);
  const addressForm = (address: string): string => address.toLowerCase();

  async function blockOutputs(height: number): Promise<TokenTransfer[]> {
    const hash = await client.blockHash(height);
    if (hash === null) throw new Error(`Bitcoin block ${height} is past the tip`);
    const block = parseBlock(await client.blockRaw(hash), hash);
    return block.outputs
      .filter((o) => isP2wshScript(o.script) && o.value > 0n)
      .map((o) => ({ token: '', to: addressOf(o.script), value: o.value, txHash: o.txid, logIndex: o.vout, blockNumber: height, blockHash: hash }));
  }

  return {
    family: 'btc',
    addressForm,
    head: () => client.tipHeight(),
    async block(number) {
      const hash = await client.blockHash(number);
      return hash === null ? null : { number, hash };
    },
    tokenTransfers: async () => [],
    utxos: {
      async outputs(from, to) {
        const found: TokenTransfer[] = [];
        for (let n = from; n <= to; n++) found.push(...(await blockOutputs(n)));
        return found;
      },
    },
    mempool: {
      async incoming(address) {
        const wanted = addressForm(address);
        const found: MempoolOutput[] = [];
        for (const tx of await client.addressMempoolTxs(address)) {
          const replaceable = tx.vin.some((i) => i.sequence < NON_REPLACEABLE_SEQUENCE);
          tx.vout.forEach((o, index) => {
            if (o.scriptpubkey_address && addressForm(o.scriptpubkey_address) === wanted && o.value > 0) {
              found.push({ txHash: tx.txid, index, to: wanted, value: BigInt(o.value), replaceable });
            }
          });
        }
        return found;
      },
      place: (txid) => txPlace(client, txid),
    },
    get calls() {
      return client.calls;
    },
    close: () => undefined,
  };
}

/**
 * Where a transaction stands on an Esplora-compatible API. An unconfirmed status is checked with `/tx/:txid`, since
 * electrs answers `{confirmed: false}` for a transaction it does not know at all: 404 there is `gone`.
 */
export async function txPlace(client: Pick<EsploraClient, 'txStatus' | 'tx'>, txid: string): Promise<TxPlace> {
  const status = await client.txStatus(txid);
  if (status === null) return { state: 'gone' };
  if (status.confirmed && status.block_height != null && status.block_hash) {
    return { state: 'confirmed', blockNumber: status.block_height, blockHash: status.block_hash };
  }
  const tx = await client.tx(txid);
  if (tx === null) return { state: 'gone' };
  const s = tx.status;
  if (s?.confirmed && s.block_height != null && s.block_hash) return { state: 'confirmed', blockNumber: s.block_height, blockHash: s.block_hash };
  return { state: 'mempool' };
}
