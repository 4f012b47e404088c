/**
 * EVM adapters of the engine's ports: a JSON-RPC chain (ethers v6) and a KMS transaction signer.
 * Nodes word duplicate broadcasts differently ("already known", "already imported", "replacement
 * transaction underpriced", "nonce too low"); they are classified here so the use cases never parse text.
 */
import type { KMSClient } from '@aws-sdk/client-kms';
import { JsonRpcProvider, Transaction } from 'ethers';
import { KmsSigner } from '../signer/kms-signer.js';
import type { FeeSuggestion } from '../../domain/chain-tx-fees.js';
import type { BroadcastOutcome, ChainPort, SignedTx, TxReceipt, TxSignerPort, UnsignedTx } from '../../usecases/chain-tx/ports.js';

const bigintSafe = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? v.toString() : v);

/** Every message an ethers/JSON-RPC error carries (its own, the node's), as one lowercase text. */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error).toLowerCase();
  const e = error as Error & { shortMessage?: unknown; info?: unknown; error?: unknown };
  let extra: string;
  try {
    extra = JSON.stringify({ s: e.shortMessage, i: e.info, e: e.error }, bigintSafe);
  } catch {
    extra = '';
  }
  return `${e.message} ${extra}`.toLowerCase();
}

export function classifyBroadcastError(error: unknown): BroadcastOutcome | undefined {
  const text = errorText(error);
  if (/nonce too low|noncetoolow|nonce has already been used|nonce_expired/.test(text)) return { kind: 'nonce_too_low', message: text.slice(0, 300) };
  if (/insufficient funds|insufficient_funds/.test(text)) return { kind: 'insufficient_funds', message: text.slice(0, 300) };
  if (/already known|already imported|alreadyknown|known transaction|existing tx with same hash|underpriced|replacement fee too low/.test(text)) {
    return { kind: 'known', message: text.slice(0, 300) };
  }
  return undefined;
}

export function evmProvider(rpcUrl: string): JsonRpcProvider {
  const provider = new JsonRpcProvider(rpcUrl, undefined, { batchMaxCount: 1, cacheTimeout: -1, staticNetwork: true, pollingInterval: 1000 });
  return provider;
}

export class EvmChain implements ChainPort {
  readonly provider: JsonRpcProvider;
  #chainId: Promise<bigint> | undefined;

  constructor(provider: JsonRpcProvider) {
    this.provider = provider;
  }

  chainId(): Promise<bigint> {
    this.#chainId ??= this.provider.send('eth_chainId', []).then((hex: string) => BigInt(hex));
    return this.#chainId;
  }

  balance(address: string): Promise<bigint> {
    return this.provider.getBalance(address, 'latest');
  }

  minedNonce(address: string, atBlock?: number): Promise<number> {
    return this.provider.getTransactionCount(address, atBlock ?? 'latest');
  }

  estimateGas(tx: { from: string; to: string; data: string; value: bigint }): Promise<bigint> {
    return this.provider.estimateGas(tx);
  }

  async feeSuggestion(): Promise<FeeSuggestion> {
    const block = await this.provider.getBlock('latest');
    const gasPrice = BigInt((await this.provider.send('eth_gasPrice', [])) as string);
    if (block?.baseFeePerGas == null) return { gasPrice };
    let tip: bigint | undefined;
    try {
      tip = BigInt((await this.provider.send('eth_maxPriorityFeePerGas', [])) as string);
    } catch {
      tip = undefined;
    }
    return { baseFeePerGas: block.baseFeePerGas, maxPriorityFeePerGas: tip, gasPrice };
  }

  async broadcast(raw: string): Promise<BroadcastOutcome> {
    try {
      await this.provider.send('eth_sendRawTransaction', [raw]);
      return { kind: 'accepted' };
    } catch (error) {
      const known = classifyBroadcastError(error);
      if (known) return known;
      throw error;
    }
  }

  async receipt(hash: string): Promise<TxReceipt | null> {
    const r = await this.provider.getTransactionReceipt(hash);
    if (!r) return null;
    return {
      hash: r.hash,
      blockNumber: r.blockNumber,
      status: r.status === 1 ? 1 : 0,
      gasUsed: r.gasUsed,
      logs: r.logs.map((log) => ({ address: log.address, topics: [...log.topics], data: log.data })),
    };
  }

  blockNumber(): Promise<number> {
    return this.provider.getBlockNumber();
  }
}

/** Signs with the KMS key named by the request (`KmsSigner`, one per key id, public key cached). */
export class KmsTxSigner implements TxSignerPort {
  readonly #client: KMSClient;
  readonly #signers = new Map<string, KmsSigner>();

  constructor(client: KMSClient) {
    this.#client = client;
  }

  signerFor(keyId: string): KmsSigner {
    let signer = this.#signers.get(keyId);
    if (!signer) {
      signer = new KmsSigner(this.#client, keyId);
      this.#signers.set(keyId, signer);
    }
    return signer;
  }

  async sign(keyId: string, tx: UnsignedTx): Promise<SignedTx> {
    const fees =
      tx.fees.type === 2
        ? { type: 2, maxFeePerGas: tx.fees.maxFeePerGas, maxPriorityFeePerGas: tx.fees.maxPriorityFeePerGas }
        : { type: 0, gasPrice: tx.fees.gasPrice };
    const raw = await this.signerFor(keyId).signTransaction({
      chainId: tx.chainId,
      from: tx.from,
      to: tx.to,
      data: tx.data,
      value: tx.value,
      nonce: tx.nonce,
      gasLimit: tx.gasLimit,
      ...fees,
    });
    const hash = Transaction.from(raw).hash;
    if (!hash) throw new Error('signed transaction without a hash');
    return { hash, raw };
  }
}

/** One EvmChain per network of `rpcUrls` (`EVM_RPC_URLS`), made on first use; a network without an endpoint is an error. */
export function evmChainsOf(rpcUrls: Readonly<Record<string, string>>): (network: string) => EvmChain {
  const chains = new Map<string, EvmChain>();
  return (network) => {
    let chain = chains.get(network);
    if (!chain) {
      const url = rpcUrls[network];
      if (!url) throw new Error(`No RPC endpoint for network ${network} in EVM_RPC_URLS`);
      chain = new EvmChain(evmProvider(url));
      chains.set(network, chain);
    }
    return chain;
  };
}
