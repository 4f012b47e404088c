/**
 * Solana end to end on the local node (litesvm) and the local KMS: an Ed25519 KMS key's address receives USDT,
 * the deposit is detected once through the signature cursor, a withdrawal signed through KMS is followed to
 * finalized, and an expired blockhash is re-signed only once it can never land. Blocks are mined by hand: no
 * timing in any assertion.
 */
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { startKmsServer } from '../../../infra/local/kms/server.js';
import type { KmsServer } from '../../../infra/local/kms/server.js';
import { randomKeypair, startSolanaNode } from '../../../infra/local/solana.js';
import type { SolanaNode } from '../../../infra/local/solana.js';
import { KmsEd25519Signer } from '../../../shared/chain/signer/kms-ed25519-signer.js';
import { associatedTokenAddress } from '../../../shared/chain/solana/address.js';
import { listIncomingTokenTransfers } from '../../../shared/chain/solana/deposits.js';
import { checkSolanaTxFate } from '../../../shared/chain/solana/expiry.js';
import type { SolanaAttempt } from '../../../shared/chain/solana/expiry.js';
import { SolanaRpc, SolanaRpcError, isBlockhashNotFound } from '../../../shared/chain/solana/rpc.js';
import type { SignatureStatus } from '../../../shared/chain/solana/rpc.js';
import { buildTokenTransferMessage, signTransaction, systemTransferInstruction, compileLegacyMessage } from '../../../shared/chain/solana/transaction.js';
import type { MessageSigner } from '../../../shared/chain/solana/transaction.js';

const USDT = (n: number): bigint => BigInt(n) * 1_000_000n;

describe('Solana: KMS-held address, deposits, withdrawals and blockhash expiry on the local node', () => {
  let kmsServer: KmsServer;
  let kms: KMSClient;
  let node: SolanaNode;
  let rpc: SolanaRpc;
  let custody: KmsEd25519Signer;
  let feePayer: KmsEd25519Signer;
  let custodyAddress: string;

  const createEd25519Key = async (): Promise<string> =>
    (await kms.send(new CreateKeyCommand({ KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY', Tags: [{ TagKey: 'gateway', TagValue: 'custody' }] })))
      .KeyMetadata?.KeyId as string;

  /** Mines one block at a time until the signature is finalized; the status at each step is recorded. */
  const followToFinalized = async (signature: string): Promise<SignatureStatus[]> => {
    const seen: SignatureStatus[] = [];
    for (let i = 0; i < 100; i++) {
      const [status] = await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true });
      if (status) seen.push(status);
      if (status?.confirmationStatus === 'finalized') return seen;
      node.mine(1);
    }
    throw new Error(`${signature} not finalized after 100 blocks`);
  };

  const withdraw = async (recipient: string, amount: bigint, signers: MessageSigner[] = [feePayer, custody]) => {
    const { blockhash, lastValidBlockHeight } = await rpc.getLatestBlockhash('confirmed');
    const message = buildTokenTransferMessage({
      feePayer: await feePayer.getAddress(),
      owner: custodyAddress,
      recipient,
      mint: node.mint,
      decimals: node.decimals,
      amount,
      recentBlockhash: blockhash,
    });
    const signed = await signTransaction(message, signers);
    return { signed, message, attempt: { signature: signed.signature, lastValidBlockHeight } satisfies SolanaAttempt };
  };

  beforeAll(async () => {
    kmsServer = await startKmsServer({ port: 0 });
    kms = new KMSClient({ endpoint: kmsServer.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
    node = await startSolanaNode({ autoMine: false });
    rpc = new SolanaRpc(node.url);
    custody = new KmsEd25519Signer(kms, await createEd25519Key());
    feePayer = new KmsEd25519Signer(kms, await createEd25519Key());
    custodyAddress = await custody.getAddress();
    // The gateway's fee payer holds SOL; the custody address holds only USDT.
    await node.fund(await feePayer.getAddress(), 1_000_000_000n);
    node.mine(1);
  });

  afterAll(async () => {
    kms?.destroy();
    await node?.close();
    await kmsServer?.close();
  });

  it('detects a USDT deposit to the KMS address exactly once, through the signature cursor', async () => {
    expect(custodyAddress).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const deposit = await node.transferToken(custodyAddress, USDT(25));
    // Not in a block yet: nothing to see.
    expect(await listIncomingTokenTransfers(rpc, { owner: custodyAddress, mint: node.mint })).toEqual({ transfers: [], cursor: undefined, more: false });

    node.mine(2);
    const early = await listIncomingTokenTransfers(rpc, { owner: custodyAddress, mint: node.mint });
    expect(early.transfers).toEqual([
      expect.objectContaining({
        signature: deposit,
        amount: USDT(25),
        from: node.faucet.address,
        tokenAccount: associatedTokenAddress(custodyAddress, node.mint),
        confirmationStatus: 'confirmed',
        finalized: false,
      }),
    ]);
    // Not finalized: the cursor stays, so the next call lists it again.
    expect(early.cursor).toBeUndefined();

    node.mine(32);
    const settled = await listIncomingTokenTransfers(rpc, { owner: custodyAddress, mint: node.mint, since: early.cursor });
    expect(settled.transfers).toEqual([expect.objectContaining({ signature: deposit, amount: USDT(25), finalized: true, confirmationStatus: 'finalized' })]);
    expect(settled.cursor).toBe(deposit);
    expect(typeof settled.transfers[0]?.slot).toBe('number');

    const after = await listIncomingTokenTransfers(rpc, { owner: custodyAddress, mint: node.mint, since: settled.cursor });
    expect(after).toEqual({ transfers: [], cursor: deposit, more: false });
    expect(await rpc.getTokenAccountBalance(associatedTokenAddress(custodyAddress, node.mint), 'finalized')).toEqual({ amount: USDT(25), decimals: 6 });
  });

  it('withdraws: a TransferChecked signed through KMS (fee payer and owner), sent, followed to finalized; the recipient gets the exact amount', async () => {
    const recipient = randomKeypair().address;
    const { signed, message } = await withdraw(recipient, USDT(10));
    expect(message.signers).toEqual([await feePayer.getAddress(), custodyAddress]);
    expect(await rpc.sendTransaction(signed.base64)).toBe(signed.signature);
    // The same bytes again (a retry after a timeout): the same signature, nothing executed twice.
    expect(await rpc.sendTransaction(signed.base64)).toBe(signed.signature);

    const statuses = await followToFinalized(signed.signature);
    expect(statuses.map((s) => s.confirmationStatus)).toEqual(expect.arrayContaining(['processed', 'confirmed', 'finalized']));
    expect(statuses.at(-1)).toMatchObject({ err: null, confirmations: null, confirmationStatus: 'finalized' });

    expect(await rpc.getTokenAccountBalance(message.destination, 'finalized')).toEqual({ amount: USDT(10), decimals: 6 });
    expect(await rpc.getTokenAccountBalance(message.source, 'finalized')).toEqual({ amount: USDT(15), decimals: 6 });
    // The custody address paid nothing: the fee payer paid the fee and the recipient account's rent.
    expect(await rpc.getBalance(custodyAddress)).toBe(0n);
    const tx = await rpc.getTransaction(signed.signature, 'finalized');
    expect(tx?.meta).toMatchObject({ err: null, fee: 10_000n });
    expect(tx?.transaction.message.instructions.map((ix) => (ix.parsed as { type?: string } | undefined)?.type)).toEqual([
      'createIdempotent',
      'transferChecked',
    ]);

    // An outgoing transfer is no deposit; the recipient sees it as one.
    const custodyDeposits = await listIncomingTokenTransfers(rpc, { owner: custodyAddress, mint: node.mint });
    expect(custodyDeposits.transfers.map((t) => t.amount)).toEqual([USDT(25)]);
    const received = await listIncomingTokenTransfers(rpc, { owner: recipient, mint: node.mint });
    expect(received.transfers).toEqual([expect.objectContaining({ signature: signed.signature, amount: USDT(10), from: custodyAddress, finalized: true })]);
  });

  it('re-signs an expired withdrawal only once it can never land, and only one transfer ever executes', async () => {
    const recipient = randomKeypair().address;
    const first = await withdraw(recipient, USDT(5));
    // Signed and persisted, but never sent (a crash before the broadcast, say).
    expect(await checkSolanaTxFate(rpc, [first.attempt])).toEqual({ kind: 'pending' });

    // Until a finalized block is past lastValidBlockHeight, the first may still land: no new signature.
    const finalizedHeight = (await rpc.getBlockHeight('finalized')) as number;
    node.mine(first.attempt.lastValidBlockHeight - finalizedHeight);
    expect(await rpc.getBlockHeight('finalized')).toBe(first.attempt.lastValidBlockHeight);
    expect(await checkSolanaTxFate(rpc, [first.attempt])).toEqual({ kind: 'pending' });
    node.mine(1);
    expect(await checkSolanaTxFate(rpc, [first.attempt])).toEqual({ kind: 'expired' });

    // The node refuses the expired bytes; sent without preflight they are dropped and never land.
    const refused = await rpc.sendTransaction(first.signed.base64).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SolanaRpcError);
    expect(isBlockhashNotFound(refused)).toBe(true);
    expect(await rpc.sendTransaction(first.signed.base64, { skipPreflight: true })).toBe(first.signed.signature);

    const second = await withdraw(recipient, USDT(5));
    expect(second.signed.signature).not.toBe(first.signed.signature);
    await rpc.sendTransaction(second.signed.base64);
    await followToFinalized(second.signed.signature);
    const fate = await checkSolanaTxFate(rpc, [first.attempt, second.attempt]);
    expect(fate).toMatchObject({ kind: 'landed', signature: second.signed.signature, status: { err: null, confirmationStatus: 'finalized' } });

    expect(await rpc.getSignatureStatuses([first.signed.signature], { searchTransactionHistory: true })).toEqual([null]);
    expect(await rpc.getTokenAccountBalance(associatedTokenAddress(recipient, node.mint), 'finalized')).toEqual({ amount: USDT(5), decimals: 6 });
    const history = await rpc.getSignaturesForAddress(associatedTokenAddress(recipient, node.mint), { commitment: 'finalized' });
    expect(history.map((h) => h.signature)).toEqual([second.signed.signature]);
  });

  it('a transaction lost on its way (acknowledged, never executed) is expired the same way', async () => {
    const recipient = randomKeypair().address;
    const lost = await withdraw(recipient, USDT(1));
    node.dropNextSends(1);
    expect(await rpc.sendTransaction(lost.signed.base64)).toBe(lost.signed.signature);
    node.mine(3);
    expect(await checkSolanaTxFate(rpc, [lost.attempt])).toEqual({ kind: 'pending' });
    node.mine(lost.attempt.lastValidBlockHeight + 1 - ((await rpc.getBlockHeight('finalized')) as number));
    expect(await checkSolanaTxFate(rpc, [lost.attempt])).toEqual({ kind: 'expired' });
    expect(node.tokenBalance(associatedTokenAddress(recipient, node.mint))).toBeNull();
  });
});

describe('the local Solana node: JSON-RPC behaviour the gateway relies on', () => {
  let node: SolanaNode;
  let rpc: SolanaRpc;

  beforeAll(async () => {
    node = await startSolanaNode({ autoMine: false });
    rpc = new SolanaRpc(node.url);
  });

  afterAll(() => node?.close());

  const raw = async (body: unknown): Promise<unknown> => {
    const response = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return response.json();
  };

  it('answers slots, block heights and blockhashes per commitment; slots run ahead of heights', async () => {
    node.mine(40);
    const processed = await rpc.getBlockHeight('processed');
    expect(processed).toBe(40);
    expect(await rpc.getBlockHeight('confirmed')).toBe(39);
    expect(await rpc.getBlockHeight('finalized')).toBe(8);
    expect(await rpc.getSlot('processed')).toBeGreaterThan((await rpc.getSlot('finalized')) + 32);
    const latest = await rpc.getLatestBlockhash('processed');
    expect(latest.lastValidBlockHeight).toBe(40 + 150);
    expect(latest.slot).toBe(await rpc.getSlot('processed'));
    expect(await raw({ jsonrpc: '2.0', id: 1, method: 'isBlockhashValid', params: [latest.blockhash, { commitment: 'processed' }] })).toMatchObject({
      result: { value: true },
    });
  });

  it('shows a transaction at confirmed only once a block is on top of it, and pages an address history newest first', async () => {
    const owner = randomKeypair().address;
    const signatures: string[] = [];
    for (let i = 1; i <= 5; i++) {
      signatures.push(await node.mintTo(owner, BigInt(i)));
      node.mine(1);
    }
    const ata = associatedTokenAddress(owner, node.mint);
    expect(await rpc.getTransaction(signatures[4] as string, 'confirmed')).toBeNull();
    node.mine(1);
    expect(await rpc.getTransaction(signatures[4] as string, 'confirmed')).not.toBeNull();
    const newestFirst = [...signatures].reverse();
    expect((await rpc.getSignaturesForAddress(ata)).map((s) => s.signature)).toEqual(newestFirst);
    expect((await rpc.getSignaturesForAddress(ata, { limit: 2 })).map((s) => s.signature)).toEqual(newestFirst.slice(0, 2));
    expect((await rpc.getSignaturesForAddress(ata, { limit: 2, before: newestFirst[1] })).map((s) => s.signature)).toEqual(newestFirst.slice(2, 4));
    expect((await rpc.getSignaturesForAddress(ata, { until: newestFirst[2] })).map((s) => s.signature)).toEqual(newestFirst.slice(0, 2));
    expect(await rpc.getSignaturesForAddress(ata, { commitment: 'finalized' })).toEqual([]);
    // Paging by one still finds every deposit, in order.
    const listed = await listIncomingTokenTransfers(rpc, { owner, mint: node.mint, pageSize: 1 });
    expect(listed.transfers.map((t) => t.amount)).toEqual([1n, 2n, 3n, 4n, 5n]);
    expect(listed.transfers.map((t) => t.signature)).toEqual(signatures);
    const firstTwo = await listIncomingTokenTransfers(rpc, { owner, mint: node.mint, maxTransactions: 2 });
    expect(firstTwo).toMatchObject({ more: true, cursor: undefined });
    expect(firstTwo.transfers.map((t) => t.amount)).toEqual([1n, 2n]);
  });

  it('records a failed transaction (sent without preflight) with its error; the deposit helper skips it and moves its cursor past it', async () => {
    const owner = randomKeypair();
    await node.fund(owner.address, 100_000_000n);
    await node.mintTo(owner.address, 3n);
    node.mine(1);
    const { blockhash } = await rpc.getLatestBlockhash('processed');
    const message = buildTokenTransferMessage({
      feePayer: owner.address,
      owner: owner.address,
      recipient: randomKeypair().address,
      mint: node.mint,
      decimals: 6,
      amount: 4n,
      recentBlockhash: blockhash,
    });
    const signed = await signTransaction(message, [owner]);
    const preflight = await rpc.sendTransaction(signed.base64).catch((e: unknown) => e);
    expect(preflight).toMatchObject({ code: -32002, transactionError: { InstructionError: [1, { Custom: 1 }] } });
    expect(await rpc.sendTransaction(signed.base64, { skipPreflight: true })).toBe(signed.signature);
    node.mine(33);
    const [status] = await rpc.getSignatureStatuses([signed.signature]);
    expect(status).toMatchObject({ err: { InstructionError: [1, { Custom: 1 }] }, confirmationStatus: 'finalized' });
    const listed = await listIncomingTokenTransfers(rpc, { owner: owner.address, mint: node.mint });
    expect(listed.transfers.map((t) => t.amount)).toEqual([3n]);
    expect(listed.cursor).toBe(signed.signature);
    // The fee was taken all the same.
    expect((await rpc.getTransaction(signed.signature))?.meta?.fee).toBe(5000n);
  });

  it('refuses bad signatures, unknown methods and processed history reads; answers batches and airdrops', async () => {
    const payer = randomKeypair();
    await node.fund(payer.address, 10_000_000n);
    node.mine(1);
    const message = compileLegacyMessage({
      feePayer: payer.address,
      recentBlockhash: (await rpc.getLatestBlockhash('processed')).blockhash,
      instructions: [systemTransferInstruction({ from: payer.address, to: randomKeypair().address, lamports: 1_000_000n })],
    });
    const forged = await signTransaction(message, [
      { getAddress: () => Promise.resolve(payer.address), signMessage: () => randomKeypair().signMessage(message.bytes) },
    ]);
    await expect(rpc.sendTransaction(forged.base64)).rejects.toMatchObject({ code: -32003 });
    await expect(rpc.getSignaturesForAddress(payer.address, { commitment: 'processed' as 'confirmed' })).rejects.toMatchObject({ code: -32602 });
    expect(await raw({ jsonrpc: '2.0', id: 7, method: 'noSuchMethod', params: [] })).toEqual({
      jsonrpc: '2.0',
      error: { code: -32601, message: 'Method not found' },
      id: 7,
    });
    expect(
      await raw([
        { jsonrpc: '2.0', id: 1, method: 'getHealth' },
        { jsonrpc: '2.0', id: 2, method: 'getBlockHeight', params: [{ commitment: 'processed' }] },
      ]),
    ).toEqual([
      { jsonrpc: '2.0', result: 'ok', id: 1 },
      { jsonrpc: '2.0', result: node.head().height, id: 2 },
    ]);
    const airdropped = randomKeypair().address;
    const answer = (await raw({ jsonrpc: '2.0', id: 3, method: 'requestAirdrop', params: [airdropped, 2_000_000_000] })) as { result: string };
    node.mine(1);
    expect(await rpc.getSignatureStatuses([answer.result])).toEqual([expect.objectContaining({ err: null, confirmationStatus: 'processed' })]);
    expect(await rpc.getBalance(airdropped)).toBe(2_000_000_000n);
    expect(await rpc.getTokenAccountBalance(randomKeypair().address)).toBeNull();
    expect(await rpc.getAccountInfo(randomKeypair().address)).toBeNull();
    const mint = await rpc.getAccountInfo(node.mint);
    expect(mint).toMatchObject({ owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', executable: false });
    expect(mint?.data).toHaveLength(82);
  });

  it('produces blocks on its own timer', async () => {
    const timed = await startSolanaNode({ blockTimeMs: 20 });
    try {
      const client = new SolanaRpc(timed.url);
      let height = 0;
      for (let i = 0; i < 500 && height < 3; i++) {
        height = await client.getBlockHeight('processed');
        if (height < 3) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(height).toBeGreaterThanOrEqual(3);
    } finally {
      await timed.close();
    }
  });
});
