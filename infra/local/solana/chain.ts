/**
 * The local Solana chain: a `LiteSVM` (the Solana runtime itself, native, in process) with what a validator and
 * its RPC node add around it, kept in memory:
 *
 * - blocks: `mine()` produces one (the stack's timer every `blockTimeMs`): a new slot (a leader skips one now
 *   and then, so slots run ahead of block heights as on mainnet), a new blockhash from the runtime, a block time;
 * - commitment: a block is `processed` when produced, `confirmed` one block later and `finalized` (rooted)
 *   `finalityDepth` blocks later (mainnet: about 32);
 * - transactions: checked as a node checks them (well-formed, every signature valid, blockhash known and not
 *   older than `blockhashValidBlocks` blocks, not a duplicate), simulated first unless `skipPreflight`, then
 *   executed by the runtime at once and included in the next block, with their status, fee, lamport and SPL
 *   token balances before and after, logs and inner instructions recorded, and indexed by every account they
 *   touch (`getSignaturesForAddress`);
 * - genesis: an SPL mint "USDT" (6 decimals) whose authority is the faucet, a keypair holding SOL and USDT, so
 *   that `fund`, `mintTo` and `transferToken` (real transactions, signed by the faucet) serve the tests and `dev`.
 *
 * LiteSVM checks blockhashes against its latest only; this chain keeps the window itself (the runtime's own check
 * is off) so that a transaction lives until its blockhash's `lastValidBlockHeight`, as on a cluster.
 */
import { createHash, createPublicKey, verify as verifySignature } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { getTransactionDecoder, address as kitAddress } from '@solana/kit';
import type { Lamports } from '@solana/kit';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import type { TransactionMetadata } from 'litesvm';
import { encodeEd25519Spki } from '../../../shared/chain/signer/ed25519.js';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, SYSTEM_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS, associatedTokenAddress } from '../../../shared/chain/solana/address.js';
import type { Commitment } from '../../../shared/chain/solana/rpc.js';
import {
  buildTokenTransferMessage,
  compileLegacyMessage,
  createAssociatedTokenAccountIdempotentInstruction,
  decodeTransaction,
  mintToCheckedInstruction,
  signTransaction,
  systemTransferInstruction,
} from '../../../shared/chain/solana/transaction.js';
import type { DecodedTransaction, Instruction, MessageSigner } from '../../../shared/chain/solana/transaction.js';
import { TOKEN_PROGRAMS, decodeMint, decodeTokenAccount, encodeMint, encodeTokenAccount, uiTokenAmount } from './parse.js';
import type { UiTokenAmount } from './parse.js';

export const LAMPORTS_PER_SOL = 1_000_000_000n;
export const LAMPORTS_PER_SIGNATURE = 5000n;
export const USDT_DECIMALS = 6;

/** A JSON-RPC error answer (`code`, `message`, `data`), as the node sends it. */
export class SolanaRpcFault extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'SolanaRpcFault';
  }
}

/** An Ed25519 keypair held in this process (the faucet, test wallets): never used by the gateway's code. */
export interface LocalKeypair extends MessageSigner {
  readonly address: string;
  readonly secretKey: Uint8Array;
}

export function keypairFromSecret(secretKey: Uint8Array): LocalKeypair {
  const address = base58.encode(ed25519.getPublicKey(secretKey));
  return {
    address,
    secretKey,
    getAddress: () => Promise.resolve(address),
    signMessage: (message) => Promise.resolve(ed25519.sign(message, secretKey)),
  };
}

/** The same keypair for the same text (addresses stable across restarts of the local node). */
export const keypairFromSeed = (seed: string): LocalKeypair => keypairFromSecret(createHash('sha256').update(seed).digest());

export const randomKeypair = (): LocalKeypair => keypairFromSecret(ed25519.utils.randomSecretKey());

export interface LocalAccount {
  readonly lamports: bigint;
  /** The owning program. */
  readonly owner: string;
  readonly data: Uint8Array;
  readonly executable: boolean;
}

export interface SolanaChainOptions {
  /** Block interval, for block times (the node's timer uses the same). Default 400 ms (mainnet's slot time). */
  readonly blockTimeMs?: number;
  /** Blocks after which a block is finalized. Default 32. */
  readonly finalityDepth?: number;
  /** Blocks a blockhash stays usable (`lastValidBlockHeight` = its height + this). Default 150, as on mainnet. */
  readonly blockhashValidBlocks?: number;
  /** The faucet's SOL, in lamports. Default 1,000,000 SOL. */
  readonly faucetLamports?: bigint;
  /** The faucet's USDT, in base units. Default 1,000,000,000 USDT. */
  readonly faucetTokens?: bigint;
  /** Where the USDT mint lives. Default: mainnet USDT's address (genesis accounts need no key), as the local TRON node does. */
  readonly mint?: string;
}

/** Mainnet USDT's mint, the local USDT mint's default address. */
export const MAINNET_USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';

export interface TokenBalanceEntry {
  readonly accountIndex: number;
  readonly mint: string;
  readonly owner: string;
  readonly programId: string;
  readonly uiTokenAmount: UiTokenAmount;
}

export interface CompiledInner {
  readonly programIdIndex: number;
  readonly accounts: readonly number[];
  readonly data: Uint8Array;
  readonly stackHeight: number;
}

export interface TxRecord {
  readonly signature: string;
  readonly wire: Uint8Array;
  readonly tx: DecodedTransaction;
  /** The JSON TransactionError when it failed (fee paid, nothing else done); null on success. */
  readonly err: unknown;
  readonly fee: bigint;
  readonly preBalances: readonly bigint[];
  readonly postBalances: readonly bigint[];
  readonly preTokenBalances: readonly TokenBalanceEntry[];
  readonly postTokenBalances: readonly TokenBalanceEntry[];
  readonly logs: readonly string[];
  readonly computeUnits: bigint;
  readonly inner: readonly { index: number; instructions: readonly CompiledInner[] }[];
  /** Set when its block is produced. */
  block?: Block;
}

export interface Block {
  readonly index: number;
  readonly slot: number;
  readonly height: number;
  readonly parentSlot: number;
  readonly blockhash: string;
  /** Unix seconds. */
  readonly blockTime: number;
  readonly transactions: TxRecord[];
}

export interface SendOptions {
  readonly skipPreflight?: boolean;
}

const TRANSACTION_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];

const INSTRUCTION_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
];

/** Errors of transactions that are not committed at all (no fee taken, not in a block). */
const UNCOMMITTED = new Set(['InsufficientFundsForFee', 'AccountNotFound', 'InvalidAccountForFee', 'AlreadyProcessed', 'SignatureFailure', 'SanitizeFailure']);

/** A runtime error as the RPC API writes TransactionError in JSON (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":1}]}`). */
function errorJson(error: ReturnType<FailedTransactionMetadata['err']>): unknown {
  if (typeof error === 'number') return TRANSACTION_ERRORS[error] ?? `TransactionError${error}`;
  if ('err' in error && typeof error.err === 'function') {
    const inner: unknown = error.err();
    let detail: unknown;
    if (typeof inner === 'number') detail = INSTRUCTION_ERRORS[inner] ?? `InstructionError${inner}`;
    else if (inner && typeof inner === 'object' && 'code' in inner) detail = { Custom: inner.code };
    else if (inner && typeof inner === 'object' && 'msg' in inner) detail = { BorshIoError: inner.msg };
    else detail = String(inner);
    return { InstructionError: [error.index, detail] };
  }
  const name = error.constructor.name.replace(/^TransactionError/, '');
  if ('accountIndex' in error) return { [name]: { account_index: error.accountIndex } };
  if ('index' in error) return { [name]: error.index };
  return name;
}

function u64(data: Uint8Array, offset: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true);
}

/** Base fee plus the priority fee its compute budget instructions ask (price × limit, micro-lamports). */
function feeOf(tx: DecodedTransaction): bigint {
  let price = 0n;
  let limit: bigint | undefined;
  let others = 0n;
  for (const ix of tx.instructions) {
    if (tx.accountKeys[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM_ADDRESS) {
      others++;
      continue;
    }
    if (ix.data[0] === 3 && ix.data.length === 9) price = u64(ix.data, 1);
    if (ix.data[0] === 2 && ix.data.length === 5) limit = BigInt(new DataView(ix.data.buffer, ix.data.byteOffset).getUint32(1, true));
  }
  const units = limit ?? (others * 200_000n < 1_400_000n ? others * 200_000n : 1_400_000n);
  return LAMPORTS_PER_SIGNATURE * BigInt(tx.signatures.length) + (price * units + 999_999n) / 1_000_000n;
}

export interface SolanaChain {
  readonly mint: string;
  readonly decimals: number;
  readonly faucet: LocalKeypair;
  readonly finalityDepth: number;
  readonly blockhashValidBlocks: number;
  /** The first block's hash: names this chain (a fresh one on every start). */
  readonly genesisHash: string;
  /** The newest block. */
  head(): Block;
  /** The newest block at a commitment. */
  blockAt(commitment: Commitment): Block;
  blockByHash(blockhash: string): Block | undefined;
  /** `lastValidBlockHeight` of a block's blockhash. */
  lastValidBlockHeight(block: Block): number;
  /** Produces `count` blocks (default 1); the transactions sent since go in the first. */
  mine(count?: number): Block;
  /** Checks, (simulates,) executes and records a wire transaction; returns its signature. Throws SolanaRpcFault. */
  send(wire: Uint8Array, options?: SendOptions): string;
  /** A recorded transaction (pending ones included). */
  record(signature: string): TxRecord | undefined;
  /** The commitment a recorded transaction has reached (null while its block is not produced). */
  commitmentOf(record: TxRecord): Commitment | null;
  /** Included transactions touching `address`, newest first. */
  history(address: string): TxRecord[];
  account(address: string): LocalAccount | null;
  balance(address: string): bigint;
  minimumBalanceForRentExemption(bytes: number): bigint;
  /** The token balance of a token account (null if none), or of `owner`'s associated account for the USDT mint. */
  tokenBalance(account: string): bigint | null;
  usdtBalance(owner: string): bigint;
  /** Lamports from the faucet (a system transfer); returns the signature. */
  fund(to: string, lamports: bigint): Promise<string>;
  /** New USDT into `owner`'s associated token account (created if needed), signed by the faucet as mint authority. */
  mintTo(owner: string, amount: bigint): Promise<string>;
  /** USDT from the faucet's own token account to `owner`'s (a TransferChecked, the account created if needed). */
  transferToken(owner: string, amount: bigint): Promise<string>;
  /** The next `count` transactions sent are acknowledged and then lost (never executed), as a dropped packet. */
  dropNextSends(count: number): void;
  stats(): { blocks: number; slot: number; blockHeight: number; transactions: number };
}

export function createSolanaChain(options: SolanaChainOptions = {}): SolanaChain {
  const blockTimeMs = options.blockTimeMs ?? 400;
  const finalityDepth = options.finalityDepth ?? 32;
  const blockhashValidBlocks = options.blockhashValidBlocks ?? 150;
  const svm = new LiteSVM().withBlockhashCheck(false).withTransactionHistory(0n);
  const faucet = keypairFromSeed('gateway local solana faucet');
  const mint = options.mint ?? MAINNET_USDT_MINT;
  const decimals = USDT_DECIMALS;
  const faucetTokens = options.faucetTokens ?? 1_000_000_000n * 10n ** BigInt(decimals);

  const lamports = (n: bigint): Lamports => n as Lamports;
  const put = (addressText: string, owner: string, data: Uint8Array, balance?: bigint): void => {
    svm.setAccount({
      address: kitAddress(addressText),
      programAddress: kitAddress(owner),
      data,
      executable: false,
      lamports: lamports(balance ?? svm.minimumBalanceForRentExemption(BigInt(data.length))),
      space: BigInt(data.length),
    });
  };
  // Genesis: the faucet's SOL, the USDT mint (the faucet its authority) and the faucet's USDT.
  put(faucet.address, SYSTEM_PROGRAM_ADDRESS, new Uint8Array(0), options.faucetLamports ?? 1_000_000n * LAMPORTS_PER_SOL);
  put(mint, TOKEN_PROGRAM_ADDRESS, encodeMint({ mintAuthority: base58.decode(faucet.address), supply: faucetTokens, decimals }));
  put(
    associatedTokenAddress(faucet.address, mint),
    TOKEN_PROGRAM_ADDRESS,
    encodeTokenAccount({ mint: base58.decode(mint), owner: base58.decode(faucet.address), amount: faucetTokens }),
  );

  const genesisTime = Math.floor(Date.now() / 1000);
  const genesisSlot = Number(svm.getClock().slot);
  const blocks: Block[] = [
    { index: 0, slot: genesisSlot, height: 0, parentSlot: genesisSlot, blockhash: svm.latestBlockhash(), blockTime: genesisTime, transactions: [] },
  ];
  const byHash = new Map<string, Block>([[blocks[0]?.blockhash as string, blocks[0] as Block]]);
  const records = new Map<string, TxRecord>();
  const byAddress = new Map<string, TxRecord[]>();
  let pending: TxRecord[] = [];
  let drops = 0;

  const head = (): Block => blocks[blocks.length - 1] as Block;
  const depthOf = (commitment: Commitment): number => (commitment === 'finalized' ? finalityDepth : commitment === 'confirmed' ? 1 : 0);
  const blockAt = (commitment: Commitment): Block => blocks[Math.max(0, blocks.length - 1 - depthOf(commitment))] as Block;
  const lastValidBlockHeight = (block: Block): number => block.height + blockhashValidBlocks;

  const account = (addressText: string): LocalAccount | null => {
    const found = svm.getAccount(kitAddress(addressText));
    return found.exists ? { lamports: found.lamports, owner: found.programAddress, data: Uint8Array.from(found.data), executable: found.executable } : null;
  };
  const balance = (addressText: string): bigint => account(addressText)?.lamports ?? 0n;

  const decimalsCache = new Map<string, number>();
  const decimalsOf = (mintAddress: string): number => {
    let d = decimalsCache.get(mintAddress);
    if (d === undefined) {
      const data = account(mintAddress)?.data;
      d = data ? (decodeMint(data)?.decimals ?? 0) : 0;
      decimalsCache.set(mintAddress, d);
    }
    return d;
  };

  const tokenBalances = (keys: readonly string[]): TokenBalanceEntry[] =>
    keys.flatMap((key, accountIndex) => {
      const found = account(key);
      if (!found || !TOKEN_PROGRAMS.has(found.owner)) return [];
      const decoded = decodeTokenAccount(found.data);
      if (!decoded) return [];
      return [
        {
          accountIndex,
          mint: decoded.mint,
          owner: decoded.owner,
          programId: found.owner,
          uiTokenAmount: uiTokenAmount(decoded.amount, decimalsOf(decoded.mint)),
        },
      ];
    });

  // Node's own Ed25519 (OpenSSL) is several times faster than a JS verify; the node checks every signature.
  const verifySignatures = (tx: DecodedTransaction): boolean =>
    tx.signatures.every((signature, i) => {
      try {
        const key = createPublicKey({ key: Buffer.from(encodeEd25519Spki(base58.decode(tx.accountKeys[i] as string))), format: 'der', type: 'spki' });
        return verifySignature(null, tx.messageBytes, key, signature);
      } catch {
        return false;
      }
    });

  const send = (wire: Uint8Array, sendOptions: SendOptions = {}): string => {
    let tx: DecodedTransaction;
    try {
      tx = decodeTransaction(wire);
    } catch (error) {
      throw new SolanaRpcFault(-32602, `invalid transaction: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (tx.lookups > 0) throw new SolanaRpcFault(-32602, 'invalid transaction: address lookup tables are not supported by the local node');
    if (!verifySignatures(tx)) throw new SolanaRpcFault(-32003, 'Transaction signature verification failure');
    const signature = base58.encode(tx.signatures[0] as Uint8Array);
    const preflight = (err: unknown, logs: readonly string[] = []): SolanaRpcFault =>
      new SolanaRpcFault(-32002, `Transaction simulation failed: ${typeof err === 'string' ? err : JSON.stringify(err)}`, {
        err,
        logs,
        accounts: null,
        unitsConsumed: 0,
        returnData: null,
      });
    if (records.has(signature)) {
      if (sendOptions.skipPreflight) return signature;
      throw preflight('AlreadyProcessed');
    }
    const referenced = byHash.get(tx.recentBlockhash);
    const building = head().height + 1;
    if (!referenced || lastValidBlockHeight(referenced) < building) {
      // Without preflight the node forwards it all the same, and the leader drops it.
      if (sendOptions.skipPreflight) return signature;
      throw preflight('BlockhashNotFound');
    }
    if (drops > 0) {
      drops--;
      return signature;
    }
    const kitTx = getTransactionDecoder().decode(wire);
    if (!sendOptions.skipPreflight) {
      const simulated = svm.simulateTransaction(kitTx);
      if (simulated instanceof FailedTransactionMetadata) throw preflight(errorJson(simulated.err()), simulated.meta().logs());
    }
    const preBalances = tx.accountKeys.map(balance);
    const preTokenBalances = tokenBalances(tx.accountKeys);
    const result = svm.sendTransaction(kitTx);
    const failed = result instanceof FailedTransactionMetadata;
    const meta: TransactionMetadata = failed ? result.meta() : result;
    const err = failed ? errorJson(result.err()) : null;
    // A transaction the runtime refused outright (no fee payable, say) never reaches a block.
    if (failed && typeof err === 'string' && UNCOMMITTED.has(err)) {
      if (sendOptions.skipPreflight) return signature;
      throw preflight(err, meta.logs());
    }
    const record: TxRecord = {
      signature,
      wire: Uint8Array.from(wire),
      tx,
      err,
      fee: feeOf(tx),
      preBalances,
      postBalances: tx.accountKeys.map(balance),
      preTokenBalances,
      postTokenBalances: tokenBalances(tx.accountKeys),
      logs: meta.logs(),
      computeUnits: meta.computeUnitsConsumed(),
      inner: meta
        .innerInstructions()
        .map((list, index) => ({
          index,
          instructions: list.map((inner) => {
            const compiled = inner.instruction();
            return {
              programIdIndex: compiled.programIdIndex(),
              accounts: Array.from(compiled.accounts()),
              data: Uint8Array.from(compiled.data()),
              stackHeight: inner.stackHeight(),
            };
          }),
        }))
        .filter((entry) => entry.instructions.length > 0),
    };
    records.set(signature, record);
    pending.push(record);
    for (const key of new Set(tx.accountKeys)) {
      const list = byAddress.get(key) ?? [];
      list.push(record);
      byAddress.set(key, list);
    }
    return signature;
  };

  const mine = (count = 1): Block => {
    for (let i = 0; i < count; i++) {
      const parent = head();
      const index = parent.index + 1;
      // Every seventh slot's leader skipped its turn: slots and block heights differ, as on mainnet.
      const slot = parent.slot + (index % 7 === 0 ? 2 : 1);
      svm.warpToSlot(BigInt(slot));
      svm.expireBlockhash();
      const block: Block = {
        index,
        slot,
        height: parent.height + 1,
        parentSlot: parent.slot,
        blockhash: svm.latestBlockhash(),
        blockTime: genesisTime + Math.floor((index * blockTimeMs) / 1000),
        transactions: pending,
      };
      for (const record of pending) record.block = block;
      pending = [];
      blocks.push(block);
      byHash.set(block.blockhash, block);
    }
    return head();
  };

  const commitmentOf = (record: TxRecord): Commitment | null => {
    if (!record.block) return null;
    const depth = head().index - record.block.index;
    return depth >= finalityDepth ? 'finalized' : depth >= 1 ? 'confirmed' : 'processed';
  };

  const faucetSend = async (instructions: Instruction[]): Promise<string> => {
    const message = compileLegacyMessage({ feePayer: faucet.address, recentBlockhash: head().blockhash, instructions });
    return send((await signTransaction(message, [faucet])).wire);
  };

  const tokenBalance = (tokenAccount: string): bigint | null => {
    const found = account(tokenAccount);
    if (!found || !TOKEN_PROGRAMS.has(found.owner)) return null;
    return decodeTokenAccount(found.data)?.amount ?? null;
  };

  return {
    mint,
    decimals,
    faucet,
    finalityDepth,
    blockhashValidBlocks,
    genesisHash: (blocks[0] as Block).blockhash,
    head,
    blockAt,
    blockByHash: (blockhash) => byHash.get(blockhash),
    lastValidBlockHeight,
    mine,
    send,
    record: (signature) => records.get(signature),
    commitmentOf,
    history: (addressText) =>
      (byAddress.get(addressText) ?? [])
        .filter((r) => r.block)
        .slice()
        .reverse(),
    account,
    balance,
    minimumBalanceForRentExemption: (bytes) => svm.minimumBalanceForRentExemption(BigInt(bytes)),
    tokenBalance,
    usdtBalance: (owner) => tokenBalance(associatedTokenAddress(owner, mint)) ?? 0n,
    fund: (to, amount) => faucetSend([systemTransferInstruction({ from: faucet.address, to, lamports: amount })]),
    mintTo: (owner, amount) =>
      faucetSend([
        createAssociatedTokenAccountIdempotentInstruction({ payer: faucet.address, owner, mint }),
        mintToCheckedInstruction({ mint, destination: associatedTokenAddress(owner, mint), authority: faucet.address, amount, decimals }),
      ]),
    async transferToken(owner, amount) {
      const message = buildTokenTransferMessage({
        feePayer: faucet.address,
        owner: faucet.address,
        recipient: owner,
        mint,
        decimals,
        amount,
        recentBlockhash: head().blockhash,
      });
      return send((await signTransaction(message, [faucet])).wire);
    },
    dropNextSends(count) {
      drops = count;
    },
    stats: () => ({ blocks: blocks.length, slot: head().slot, blockHeight: head().height, transactions: records.size }),
  };
}
