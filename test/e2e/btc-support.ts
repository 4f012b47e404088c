import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { p2wpkh, Transaction } from '@scure/btc-signer';
import { REGTEST, startBitcoinNode } from '../../infra/local/bitcoin.js';
import type { BitcoinNode } from '../../infra/local/bitcoin.js';
import { resetConfig } from '../../shared/config/config.js';
import { putFixedRates } from '../integration/payments/support.js';
import { startTestStack } from '../support/stack.js';
import type { TestStack } from '../support/stack.js';

/**
 * What the BTC e2e files share. The local stack (DynamoDB Local, the KMS server with the hot wallet's key) without
 * its own Bitcoin node, which mines every 2 s, and a node started here that mines on the test's word
 * (`/_local/mine`): whether a payment is first seen in the mempool or in a block is then the test's to say. Its
 * Esplora API is the deployment's `BTC_API_URL`, set before the handlers load. The customer is a wallet of the
 * test's own (a P2WPKH key, funded by the node's `/_local/fund`, its payments built and signed here with
 * @scure/btc-signer, broadcast with `POST /tx`).
 */
export interface BtcStack {
  readonly stack: TestStack;
  readonly node: BitcoinNode;
  /** One pass of the chain-scanner worker (a budget of about a second: one pass a network). */
  pass(): Promise<unknown>;
  /** Closes the node and the stack; the Bitcoin settings leave the environment. */
  stop(): Promise<void>;
}

/** Starts the stack and the node, wires the deployment's Bitcoin settings, puts the fixed rates; the scanner's cursor at the tip. */
export async function startBtcStack(): Promise<BtcStack> {
  const stack = await startTestStack({ pollers: false, http: false });
  let node: BitcoinNode | undefined;
  const stop = async (): Promise<void> => {
    await node?.close();
    await stack.stop();
    delete process.env.BTC_API_URL;
    delete process.env.BTC_NETWORK;
  };
  try {
    node = await startBitcoinNode({ autoMine: false });
    // The deployment's Bitcoin settings, as the stack sets them for its own node (bitcoinEnv), before the handlers load.
    Object.assign(process.env, { BTC_API_URL: node.url, BTC_NETWORK: 'local' });
    resetConfig();
    const { handler: chainScanner } = await import('../../functions/chain-scanner/handler.js');
    const pass = () => chainScanner(undefined, { getRemainingTimeInMillis: () => 16_000 });
    await putFixedRates();
    // The scanner's cursor starts at the tip on its first pass.
    await pass();
    return { stack, node, pass, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A POST to one of the node's local-only endpoints (`/_local/fund`, `/_local/mine`, `/_local/reorg`...). */
export async function local(node: BitcoinNode, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${node.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

export interface Coin {
  readonly txid: string;
  readonly vout: number;
  readonly amount: bigint;
}

export interface Customer {
  readonly address: string;
  /** A coin of the customer's: funded by the faucet, mined. */
  fundedCoin(amount: bigint): Promise<Coin>;
  /** Spends `coin`: `value` to `to`, the rest less `fee` back to the customer; `sequence` below 0xfffffffe signals BIP125. */
  spend(coin: Coin, to: string, value: bigint, fee: bigint, sequence: number): Transaction;
  /** Broadcasts with `POST /tx`; answers the txid. */
  broadcast(tx: Transaction): Promise<string>;
}

/** A wallet of the test's own on `node`, a fresh key. */
export function customerWallet(node: BitcoinNode): Customer {
  const key = secp256k1.utils.randomSecretKey();
  const wallet = p2wpkh(secp256k1.getPublicKey(key, true), REGTEST);
  const address = wallet.address as string;
  return {
    address,
    async fundedCoin(amount) {
      const { txid } = (await local(node, '/_local/fund', { address, amount: amount.toString() })) as { txid: string };
      await local(node, '/_local/mine', { blocks: 1 });
      const utxos = (await (await fetch(`${node.url}/address/${address}/utxo`)).json()) as { txid: string; vout: number; value: number }[];
      const coin = utxos.find((u) => u.txid === txid);
      if (!coin) throw new Error(`the faucet's payment ${txid} is not among the customer's coins`);
      return { txid, vout: coin.vout, amount: BigInt(coin.value) };
    },
    spend(coin, to, value, fee, sequence) {
      const tx = new Transaction();
      tx.addInput({ txid: hexToBytes(coin.txid), index: coin.vout, witnessUtxo: { script: wallet.script, amount: coin.amount }, sequence });
      tx.addOutputAddress(to, value, REGTEST);
      tx.addOutputAddress(address, coin.amount - value - fee, REGTEST);
      tx.sign(key);
      tx.finalize();
      return tx;
    },
    async broadcast(tx) {
      const res = await fetch(`${node.url}/tx`, { method: 'POST', body: tx.hex });
      const text = await res.text();
      expect([res.status, text]).toEqual([200, tx.id]);
      return text;
    },
  };
}

/** A fresh P2WPKH address of the test's (nobody's wallet here): where a payment or a refund goes elsewhere. */
export const elsewhereAddress = (): string => p2wpkh(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), REGTEST).address as string;
