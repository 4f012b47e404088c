import { ed25519 } from '@noble/curves/ed25519.js';
import { base58, base64 } from '@scure/base';
import { logRecipientSource } from '../../../shared/chain/evm/deposit-source.js';
import type { EvmChainPort, TransferLog } from '../../../shared/chain/evm/scanner.js';
import { associatedTokenAddress } from '../../../shared/chain/solana/address.js';
import type { SignatureStatus, SolanaRpcPort } from '../../../shared/chain/solana/rpc.js';
import { RPC_ERROR, SolanaRpcError } from '../../../shared/chain/solana/rpc.js';
import type { MessageSigner } from '../../../shared/chain/solana/transaction.js';
import { decodeTransaction } from '../../../shared/chain/solana/transaction.js';
import { solanaTransfers } from '../../../shared/chain/solana/transfers.js';

/**
 * The chain adapters behind custody's ports: the SolanaTransferPort over Solana's JSON-RPC (shared/chain/solana/
 * transfers.ts) and the recipient-transfer reader of the log-reading deposit sources (custody's sync).
 */
const MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const BLOCKHASH = base58.encode(new Uint8Array(32).fill(7));
const keypair = (seed: number): MessageSigner & { address: string } => {
  const secret = new Uint8Array(32).fill(seed);
  const addr = base58.encode(ed25519.getPublicKey(secret));
  return { address: addr, getAddress: () => Promise.resolve(addr), signMessage: (m) => Promise.resolve(ed25519.sign(m, secret)) };
};
const payer = keypair(1);
const owner = keypair(2);
const recipient = keypair(3).address;

type Rpc = Pick<SolanaRpcPort, 'getLatestBlockhash' | 'sendTransaction' | 'getSignatureStatuses' | 'getBlockHeight' | 'getTokenAccountBalance'>;
function fakeRpc(overrides: Partial<Rpc> = {}): Rpc & { readonly calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async getLatestBlockhash(commitment) {
      calls.push(`getLatestBlockhash ${commitment}`);
      return { blockhash: BLOCKHASH, lastValidBlockHeight: 150, slot: 9 };
    },
    async sendTransaction(wire) {
      calls.push(`sendTransaction ${wire.length}`);
      return 'sig';
    },
    async getSignatureStatuses(signatures) {
      calls.push(`getSignatureStatuses ${signatures.join(',')}`);
      return signatures.map(() => null);
    },
    async getBlockHeight(commitment) {
      calls.push(`getBlockHeight ${commitment}`);
      return 100;
    },
    async getTokenAccountBalance(address) {
      calls.push(`getTokenAccountBalance ${address}`);
      return null;
    },
    ...overrides,
  };
}
const transfers = (rpc: Rpc) => solanaTransfers({ rpc, mint: MINT, feePayer: payer, signerFor: (keyId) => (keyId === 'key-2' ? owner : keypair(9)) });

describe('solanaTransfers (the SolanaTransferPort over JSON-RPC)', () => {
  it("reads the owner's associated token account, 0 when it has none", async () => {
    const rpc = fakeRpc();
    expect(await transfers(rpc).tokenBalance(owner.address)).toBe(0n);
    expect(rpc.calls).toEqual([`getTokenAccountBalance ${associatedTokenAddress(owner.address, MINT)}`]);
    const held = fakeRpc({ getTokenAccountBalance: async () => ({ amount: 42n, decimals: 6 }) });
    expect(await transfers(held).tokenBalance(owner.address)).toBe(42n);
  });

  it("signs a transfer on a confirmed blockhash with the fee payer's and the address key's signatures, sending nothing", async () => {
    const rpc = fakeRpc();
    const signed = await transfers(rpc).signTransfer({ owner: owner.address, keyId: 'key-2', recipient, amount: 12_000_000n, decimals: 6 });
    expect(rpc.calls).toEqual(['getLatestBlockhash confirmed']);
    expect(signed.lastValidBlockHeight).toBe(150);
    const tx = decodeTransaction(base64.decode(signed.wire));
    expect([tx.recentBlockhash, tx.accountKeys.slice(0, 2), base58.encode(tx.signatures[0] as Uint8Array)]).toEqual([
      BLOCKHASH,
      [payer.address, owner.address],
      signed.signature,
    ]);
    for (const [i, signer] of [payer, owner].entries()) {
      expect(ed25519.verify(tx.signatures[i] as Uint8Array, tx.messageBytes, base58.decode(signer.address))).toBe(true);
    }
  });

  it('sends bytes as they are: `stale` when the node no longer knows their blockhash, any other failure thrown', async () => {
    expect(await transfers(fakeRpc()).send('AQID')).toBe('sent');
    const stale = new SolanaRpcError(RPC_ERROR.SEND_TRANSACTION_PREFLIGHT_FAILURE, 'preflight', { data: { err: 'BlockhashNotFound' } });
    expect(await transfers(fakeRpc({ sendTransaction: () => Promise.reject(stale) })).send('AQID')).toBe('stale');
    const failed = new SolanaRpcError(RPC_ERROR.SEND_TRANSACTION_PREFLIGHT_FAILURE, 'preflight', { data: { err: { InstructionError: [2, { Custom: 1 }] } } });
    await expect(transfers(fakeRpc({ sendTransaction: () => Promise.reject(failed) })).send('AQID')).rejects.toBe(failed);
  });

  it('judges attempts: the finalized height read before the statuses, expired only past every one, landed with its finality and error', async () => {
    const attempts = [
      { signature: 's1', lastValidBlockHeight: 90 },
      { signature: 's2', lastValidBlockHeight: 120 },
    ];
    const rpc = fakeRpc();
    expect(await transfers(rpc).fate(attempts)).toEqual({ kind: 'pending' });
    expect(rpc.calls).toEqual(['getBlockHeight finalized', 'getSignatureStatuses s1,s2']);
    expect(await transfers(fakeRpc({ getBlockHeight: async () => 121 })).fate(attempts)).toEqual({ kind: 'expired' });

    const status = (s: Partial<SignatureStatus>): SignatureStatus => ({ slot: 5, confirmations: null, err: null, confirmationStatus: 'finalized', ...s });
    const answering = (st: SignatureStatus) => fakeRpc({ getBlockHeight: async () => 500, getSignatureStatuses: async () => [null, st] });
    expect(await transfers(answering(status({ confirmationStatus: 'confirmed', confirmations: 3 }))).fate(attempts)).toEqual({
      kind: 'landed',
      signature: 's2',
      final: false,
      error: null,
    });
    expect(await transfers(answering(status({}))).fate(attempts)).toEqual({ kind: 'landed', signature: 's2', final: true, error: null });
    expect(await transfers(answering(status({ err: { InstructionError: [2, { Custom: 1 }] } }))).fate(attempts)).toEqual({
      kind: 'landed',
      signature: 's2',
      final: true,
      error: '{"InstructionError":[2,{"Custom":1}]}',
    });
  });
});

describe('logRecipientSource (custody sync over a log-reading chain)', () => {
  it("is the chain's DepositSource that also reads one recipient's transfers, in ranges of the wired size, its call count live", async () => {
    const asked: unknown[][] = [];
    const log: TransferLog = { token: '0xt', from: '0xf', to: '0xaa', value: 5n, txHash: '0xh', logIndex: 0, blockNumber: 3, blockHash: '0xb' };
    let calls = 0;
    const chain = {
      get calls() {
        return calls;
      },
      blockNumber: async () => 10,
      transferLogsTo: async (...args: unknown[]) => {
        calls++;
        asked.push(args);
        return [log];
      },
      close: () => undefined,
    } as unknown as EvmChainPort;
    const source = logRecipientSource('evm', chain, (a) => a.toLowerCase(), 250);
    expect([source.family, source.addressForm('0xAA'), await source.head()]).toEqual(['evm', '0xaa', 10]);
    expect(await source.transfersTo(1, 10, ['0xt'], '0xAA')).toEqual([log]);
    expect(asked).toEqual([[1, 10, ['0xt'], '0xAA', { maxRange: 250 }]]);
    expect(source.calls).toBe(1);
  });
});
