/**
 * Custody's SolanaTransferPort (shared/usecases/custody/ports.ts) over Solana's JSON-RPC: a USDT `TransferChecked`
 * from a custody address's associated token account to the recipient's (created idempotently in the same
 * transaction), signed by the address's Ed25519 KMS key and the platform's fee payer (who pays the fees and that
 * rent), on a `confirmed` blockhash; sent as is; its attempts judged by ./expiry.ts (`checkSolanaTxFate`: the
 * finalized block height read before the statuses, so expiry is decided only once every attempt's blockhash is past).
 */
import type { SolanaTransferPort } from '../../usecases/custody/ports.js';
import { associatedTokenAddress } from './address.js';
import { checkSolanaTxFate, isFinalized } from './expiry.js';
import type { SolanaRpcPort } from './rpc.js';
import { isBlockhashNotFound } from './rpc.js';
import type { MessageSigner } from './transaction.js';
import { buildTokenTransferMessage, signTransaction } from './transaction.js';

export interface SolanaTransfersOptions {
  readonly rpc: Pick<SolanaRpcPort, 'getLatestBlockhash' | 'sendTransaction' | 'getSignatureStatuses' | 'getBlockHeight' | 'getTokenAccountBalance'>;
  /** The USDT mint. */
  readonly mint: string;
  /** The platform's fee payer (a KMS Ed25519 key). */
  readonly feePayer: MessageSigner;
  /** The signer of a custody address's KMS key. */
  readonly signerFor: (keyId: string) => MessageSigner;
}

export function solanaTransfers({ rpc, mint, feePayer, signerFor }: SolanaTransfersOptions): SolanaTransferPort {
  return {
    async tokenBalance(owner) {
      return (await rpc.getTokenAccountBalance(associatedTokenAddress(owner, mint)))?.amount ?? 0n;
    },
    async signTransfer({ owner, keyId, recipient, amount, decimals }) {
      const { blockhash, lastValidBlockHeight } = await rpc.getLatestBlockhash('confirmed');
      const message = buildTokenTransferMessage({
        feePayer: await feePayer.getAddress(),
        owner,
        recipient,
        mint,
        decimals,
        amount,
        recentBlockhash: blockhash,
      });
      const signed = await signTransaction(message, [feePayer, signerFor(keyId)]);
      return { signature: signed.signature, lastValidBlockHeight, wire: signed.base64 };
    },
    async send(wire) {
      try {
        await rpc.sendTransaction(wire);
        return 'sent';
      } catch (error) {
        if (isBlockhashNotFound(error)) return 'stale';
        throw error;
      }
    },
    async fate(attempts) {
      const fate = await checkSolanaTxFate(rpc, attempts);
      if (fate.kind !== 'landed') return fate;
      const err: unknown = fate.status.err;
      return {
        kind: 'landed',
        signature: fate.signature,
        final: isFinalized(fate.status),
        error: err === null || err === undefined ? null : JSON.stringify(err),
      };
    },
  };
}
