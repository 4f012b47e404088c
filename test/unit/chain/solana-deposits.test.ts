import { associatedTokenAddress } from '../../../shared/chain/solana/address.js';
import { listIncomingTokenTransfers, tokenBalanceChange } from '../../../shared/chain/solana/deposits.js';
import { solanaTxFate } from '../../../shared/chain/solana/expiry.js';
import type { Commitment, ParsedTransaction, SignatureInfo, SignatureStatus, SolanaRpcPort } from '../../../shared/chain/solana/rpc.js';

const OWNER = '3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG';
const SENDER = 'AAAGuCgkmxYDTiBvzx1QT5XEjqXPRtQaiEXQo4gatD2o';
const MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const OTHER_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const ATA = associatedTokenAddress(OWNER, MINT);
const SENDER_ATA = associatedTokenAddress(SENDER, MINT);

interface FakeTx {
  signature: string;
  /** Owner ATA balance before and after (undefined: the account did not exist / is not in the transaction's balances). */
  pre?: bigint;
  post?: bigint;
  mint?: string;
  err?: unknown;
  status: Commitment;
}

/** A node whose history of the ATA is `txs` (oldest first). */
function fakeRpc(txs: FakeTx[]): Pick<SolanaRpcPort, 'getSignaturesForAddress' | 'getTransaction'> & { calls: string[] } {
  const calls: string[] = [];
  const tb = (accountIndex: number, owner: string, amount: bigint, mint = MINT) => ({ accountIndex, mint, owner, uiTokenAmount: { amount, decimals: 6 } });
  return {
    calls,
    getSignaturesForAddress(address, options = {}) {
      calls.push(`sigs ${options.until ?? '-'} ${options.before ?? '-'}`);
      expect(address).toBe(ATA);
      let list = [...txs].reverse();
      if (options.before) list = list.slice(list.findIndex((t) => t.signature === options.before) + 1);
      if (options.until) {
        const at = list.findIndex((t) => t.signature === options.until);
        if (at >= 0) list = list.slice(0, at);
      }
      return Promise.resolve(
        list.slice(0, options.limit ?? 1000).map((t, i): SignatureInfo => ({
          signature: t.signature,
          slot: 100 + i,
          err: t.err ?? null,
          memo: null,
          blockTime: null,
          confirmationStatus: t.status,
        })),
      );
    },
    getTransaction(signature) {
      calls.push(`tx ${signature}`);
      const t = txs.find((x) => x.signature === signature);
      if (!t) return Promise.resolve(null);
      const mint = t.mint ?? MINT;
      const amount = (t.post ?? 0n) - (t.pre ?? 0n);
      const tx: ParsedTransaction = {
        slot: 100,
        blockTime: 1_700_000_000,
        meta: {
          err: t.err ?? null,
          fee: 5000n,
          preBalances: [],
          postBalances: [],
          logMessages: [],
          preTokenBalances: [...(t.pre === undefined ? [] : [tb(1, OWNER, t.pre, mint)]), tb(2, SENDER, 1_000n, mint)],
          postTokenBalances: [...(t.post === undefined ? [] : [tb(1, OWNER, t.post, mint)]), tb(2, SENDER, 1_000n - amount, mint)],
        },
        transaction: {
          signatures: [signature],
          message: {
            accountKeys: [
              { pubkey: SENDER, signer: true, writable: true },
              { pubkey: ATA, signer: false, writable: true },
              { pubkey: SENDER_ATA, signer: false, writable: true },
            ],
            recentBlockhash: '11111111111111111111111111111111',
            instructions: [],
          },
        },
      };
      return Promise.resolve(tx);
    },
  };
}

describe('listIncomingTokenTransfers', () => {
  it('lists increases of the owner ATA oldest first, each with its payer; outgoing, other mints and failures are not deposits', async () => {
    const rpc = fakeRpc([
      { signature: 'a', post: 10n, status: 'finalized' },
      { signature: 'b', pre: 10n, post: 4n, status: 'finalized' },
      { signature: 'c', pre: 4n, post: 4n, mint: OTHER_MINT, status: 'finalized' },
      { signature: 'd', err: { InstructionError: [0, 'Custom'] }, status: 'finalized' },
      { signature: 'e', pre: 4n, post: 9n, status: 'finalized' },
    ]);
    const out = await listIncomingTokenTransfers(rpc, { owner: OWNER, mint: MINT });
    expect(out.transfers.map((t) => [t.signature, t.amount, t.from, t.finalized])).toEqual([
      ['a', 10n, SENDER, true],
      ['e', 5n, SENDER, true],
    ]);
    expect(out).toMatchObject({ cursor: 'e', more: false });
    // The failed transaction was not read.
    expect(rpc.calls).not.toContain('tx d');
  });

  it('moves the cursor only across a finalized prefix; what settles later is listed again, then never', async () => {
    const txs: FakeTx[] = [
      { signature: 'a', post: 1n, status: 'finalized' },
      { signature: 'b', pre: 1n, post: 3n, status: 'confirmed' },
      { signature: 'c', pre: 3n, post: 6n, status: 'finalized' },
    ];
    const rpc = fakeRpc(txs);
    const first = await listIncomingTokenTransfers(rpc, { owner: OWNER, mint: MINT });
    expect(first.transfers.map((t) => [t.signature, t.finalized])).toEqual([
      ['a', true],
      ['b', false],
      ['c', true],
    ]);
    expect(first.cursor).toBe('a');
    (txs[1] as FakeTx).status = 'finalized';
    const second = await listIncomingTokenTransfers(rpc, { owner: OWNER, mint: MINT, since: first.cursor });
    expect(second.transfers.map((t) => t.signature)).toEqual(['b', 'c']);
    expect(second.cursor).toBe('c');
    expect(await listIncomingTokenTransfers(rpc, { owner: OWNER, mint: MINT, since: second.cursor })).toEqual({ transfers: [], cursor: 'c', more: false });
  });

  it('pages the history back to the cursor and reads at most maxTransactions, oldest first', async () => {
    const txs: FakeTx[] = Array.from({ length: 7 }, (_, i) => ({ signature: `s${i}`, pre: BigInt(i), post: BigInt(i + 1), status: 'finalized' as const }));
    const rpc = fakeRpc(txs);
    const out = await listIncomingTokenTransfers(rpc, { owner: OWNER, mint: MINT, since: 's1', pageSize: 2, maxTransactions: 3 });
    expect(out.transfers.map((t) => t.signature)).toEqual(['s2', 's3', 's4']);
    expect(out).toMatchObject({ cursor: 's4', more: true });
    expect(rpc.calls.filter((c) => c.startsWith('sigs'))).toEqual(['sigs s1 -', 'sigs s1 s5', 'sigs s1 s3']);
  });

  it('a listed transaction not yet readable holds the cursor', async () => {
    const rpc = fakeRpc([{ signature: 'a', post: 1n, status: 'finalized' }]);
    const missing = { ...rpc, getTransaction: () => Promise.resolve(null) };
    expect(await listIncomingTokenTransfers(missing, { owner: OWNER, mint: MINT })).toEqual({ transfers: [], cursor: undefined, more: false });
  });

  it('tokenBalanceChange is 0 for an account the transaction does not touch', async () => {
    const tx = await fakeRpc([{ signature: 'a', post: 7n, status: 'finalized' }]).getTransaction('a');
    expect(tokenBalanceChange(tx as ParsedTransaction, ATA, MINT)).toBe(7n);
    expect(tokenBalanceChange(tx as ParsedTransaction, OWNER, MINT)).toBe(0n);
    expect(tokenBalanceChange(tx as ParsedTransaction, ATA, OTHER_MINT)).toBe(0n);
  });
});

describe('solanaTxFate', () => {
  const landed: SignatureStatus = { slot: 5, confirmations: 1, err: null, confirmationStatus: 'confirmed' };
  const a = { signature: 'a', lastValidBlockHeight: 100 };
  const b = { signature: 'b', lastValidBlockHeight: 250 };

  it('is expired only when every attempt is past its last valid height at a finalized block and none has a status', () => {
    expect(solanaTxFate([a], [null], 99)).toEqual({ kind: 'pending' });
    expect(solanaTxFate([a], [null], 100)).toEqual({ kind: 'pending' });
    expect(solanaTxFate([a], [null], 101)).toEqual({ kind: 'expired' });
    expect(solanaTxFate([a, b], [null, null], 101)).toEqual({ kind: 'pending' });
    expect(solanaTxFate([a, b], [null, null], 251)).toEqual({ kind: 'expired' });
  });

  it('any status wins, whatever the height, failed ones included', () => {
    expect(solanaTxFate([a, b], [null, landed], 1000)).toEqual({ kind: 'landed', signature: 'b', status: landed });
    const failed = { ...landed, err: { InstructionError: [1, { Custom: 1 }] } };
    expect(solanaTxFate([a], [failed], 0)).toEqual({ kind: 'landed', signature: 'a', status: failed });
    expect(() => solanaTxFate([], [], 0)).toThrow(RangeError);
    expect(() => solanaTxFate([a], [], 0)).toThrow(RangeError);
  });
});
