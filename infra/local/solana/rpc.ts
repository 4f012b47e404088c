/**
 * The JSON-RPC methods of the local Solana node, over its chain (./chain.ts), with the parameters, defaults and
 * answers of the Solana RPC API: `getLatestBlockhash`, `isBlockhashValid`, `sendTransaction` (base64 or base58),
 * `getSignatureStatuses`, `getSlot`, `getBlockHeight`, `getBalance`, `getTokenAccountBalance`,
 * `getSignaturesForAddress`, `getTransaction` (json, jsonParsed, base64), `getAccountInfo` (base64, base58,
 * jsonParsed for token accounts), `getMinimumBalanceForRentExemption`, `requestAirdrop`, `getHealth`,
 * `getVersion`, `getGenesisHash`.
 *
 * Commitment (default `finalized`, as on a cluster) picks the block for slots, heights and blockhashes and
 * what `getTransaction` / `getSignaturesForAddress` show; account reads answer the latest state.
 */
import { base58, base64 } from '@scure/base';
import type { Commitment } from '../../../shared/chain/solana/rpc.js';
import { accountRole } from '../../../shared/chain/solana/transaction.js';
import type { SolanaChain, TxRecord } from './chain.js';
import { SolanaRpcFault } from './chain.js';
import { TOKEN_PROGRAMS, decodeMint, decodeTokenAccount, parseInstruction, uiTokenAmount } from './parse.js';

type Params = readonly unknown[];
export type RpcMethod = (params: Params) => unknown | Promise<unknown>;

const invalid = (message: string): SolanaRpcFault => new SolanaRpcFault(-32602, `Invalid params: ${message}`);

function configOf(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('the configuration must be an object');
  return value as Record<string, unknown>;
}

function stringParam(params: Params, index: number, what: string): string {
  const value = params[index];
  if (typeof value !== 'string') throw invalid(`${what} must be a string`);
  return value;
}

function addressParam(params: Params, index: number): string {
  const value = stringParam(params, index, 'the address');
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(value);
  } catch {
    throw invalid('Invalid param: WrongSize');
  }
  if (bytes.length !== 32) throw invalid('Invalid param: WrongSize');
  return value;
}

function commitmentOf(config: Record<string, unknown>, fallback: Commitment = 'finalized'): Commitment {
  const value = config.commitment ?? fallback;
  // Older names still accepted by nodes.
  if (value === 'recent') return 'processed';
  if (value === 'single' || value === 'singleGossip') return 'confirmed';
  if (value === 'max' || value === 'root') return 'finalized';
  if (value !== 'processed' && value !== 'confirmed' && value !== 'finalized') throw invalid(`unknown commitment ${String(value)}`);
  return value;
}

function atLeastConfirmed(config: Record<string, unknown>): Exclude<Commitment, 'processed'> {
  const commitment = commitmentOf(config);
  if (commitment === 'processed') throw invalid('Method does not support commitment below `confirmed`');
  return commitment;
}

function integerParam(value: unknown, what: string): bigint {
  if (typeof value === 'bigint' && value >= 0n) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw invalid(`${what} must be a non-negative integer`);
}

/** The statuses' view of a record: null while its block is not produced. */
function statusOf(chain: SolanaChain, record: TxRecord | undefined): unknown {
  const commitment = record ? chain.commitmentOf(record) : null;
  if (!record?.block || !commitment) return null;
  const confirmations = commitment === 'finalized' ? null : chain.head().index - record.block.index;
  return {
    slot: record.block.slot,
    confirmations,
    err: record.err,
    status: record.err === null ? { Ok: null } : { Err: record.err },
    confirmationStatus: commitment,
  };
}

const visibleAt = (chain: SolanaChain, record: TxRecord, commitment: Commitment): boolean => {
  const reached = chain.commitmentOf(record);
  if (!reached) return false;
  const rank = { processed: 0, confirmed: 1, finalized: 2 } as const;
  return rank[reached] >= rank[commitment];
};

function renderTransaction(record: TxRecord, encoding: string, maxVersion: number | undefined): Record<string, unknown> {
  const { tx } = record;
  const block = record.block;
  if (!block) throw new Error('only included transactions are rendered');
  if (tx.version === 0 && maxVersion === undefined) {
    throw new SolanaRpcFault(
      -32015,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const parsed = encoding === 'jsonParsed';
  const unparsedInstruction = (programIdIndex: number, accounts: readonly number[], data: Uint8Array, stackHeight: number | null) =>
    parsed
      ? parseInstruction(
          tx.accountKeys[programIdIndex] ?? '',
          accounts.map((i) => tx.accountKeys[i] ?? ''),
          data,
          stackHeight,
        )
      : { programIdIndex, accounts: [...accounts], data: base58.encode(data), stackHeight };
  const tokenBalance = (b: TxRecord['preTokenBalances'][number]) => ({ ...b });
  const meta = {
    err: record.err,
    status: record.err === null ? { Ok: null } : { Err: record.err },
    fee: record.fee,
    preBalances: record.preBalances,
    postBalances: record.postBalances,
    innerInstructions: record.inner.map((entry) => ({
      index: entry.index,
      instructions: entry.instructions.map((ix) => unparsedInstruction(ix.programIdIndex, ix.accounts, ix.data, ix.stackHeight)),
    })),
    logMessages: record.logs,
    preTokenBalances: record.preTokenBalances.map(tokenBalance),
    postTokenBalances: record.postTokenBalances.map(tokenBalance),
    rewards: [],
    loadedAddresses: { writable: [], readonly: [] },
    computeUnitsConsumed: record.computeUnits,
  };
  let transaction: unknown;
  if (encoding === 'base64') {
    transaction = [base64.encode(record.wire), 'base64'];
  } else {
    const signatures = tx.signatures.map((s) => base58.encode(s));
    const instructions = tx.instructions.map((ix) => unparsedInstruction(ix.programIdIndex, ix.accountIndexes, ix.data, null));
    transaction = {
      signatures,
      message: parsed
        ? {
            accountKeys: tx.accountKeys.map((pubkey, i) => ({ pubkey, ...accountRole(tx, i), source: 'transaction' })),
            recentBlockhash: tx.recentBlockhash,
            instructions,
          }
        : {
            header: {
              numRequiredSignatures: tx.header.requiredSignatures,
              numReadonlySignedAccounts: tx.header.readonlySigned,
              numReadonlyUnsignedAccounts: tx.header.readonlyUnsigned,
            },
            accountKeys: tx.accountKeys,
            recentBlockhash: tx.recentBlockhash,
            instructions,
          },
    };
  }
  return {
    slot: block.slot,
    blockTime: block.blockTime,
    transaction,
    meta,
    ...(maxVersion === undefined ? {} : { version: tx.version }),
  };
}

function renderAccount(chain: SolanaChain, address: string, encoding: string): unknown {
  const account = chain.account(address);
  if (!account) return null;
  const common = {
    lamports: account.lamports,
    owner: account.owner,
    executable: account.executable,
    rentEpoch: 18446744073709551615n,
    space: account.data.length,
  };
  if (encoding === 'jsonParsed' && TOKEN_PROGRAMS.has(account.owner)) {
    const token = decodeTokenAccount(account.data);
    if (token) {
      const mintData = chain.account(token.mint)?.data;
      const decimals = mintData ? (decodeMint(mintData)?.decimals ?? 0) : 0;
      return {
        ...common,
        data: {
          program: 'spl-token',
          parsed: {
            type: 'account',
            info: { mint: token.mint, owner: token.owner, tokenAmount: uiTokenAmount(token.amount, decimals), state: 'initialized', isNative: false },
          },
          space: account.data.length,
        },
      };
    }
    const mint = decodeMint(account.data);
    if (mint) {
      return {
        ...common,
        data: {
          program: 'spl-token',
          parsed: { type: 'mint', info: { decimals: mint.decimals, supply: mint.supply.toString(), isInitialized: true } },
          space: account.data.length,
        },
      };
    }
  }
  if (encoding === 'base58' || encoding === 'binary') return { ...common, data: [base58.encode(account.data), 'base58'] };
  return { ...common, data: [base64.encode(account.data), 'base64'] };
}

/** The node's methods by name. */
export function solanaRpcMethods(chain: SolanaChain): Record<string, RpcMethod> {
  const context = (commitment: Commitment = 'processed') => ({ slot: chain.blockAt(commitment).slot, apiVersion: '2.2.0' });

  return {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.2.0', 'feature-set': 0 }),
    getGenesisHash: () => chain.genesisHash,

    getLatestBlockhash(params) {
      const commitment = commitmentOf(configOf(params[0]));
      const block = chain.blockAt(commitment);
      return { context: context(commitment), value: { blockhash: block.blockhash, lastValidBlockHeight: chain.lastValidBlockHeight(block) } };
    },

    isBlockhashValid(params) {
      const blockhash = stringParam(params, 0, 'the blockhash');
      const commitment = commitmentOf(configOf(params[1]), 'processed');
      const block = chain.blockByHash(blockhash);
      const valid = block !== undefined && chain.lastValidBlockHeight(block) > chain.blockAt(commitment).height;
      return { context: context(commitment), value: valid };
    },

    sendTransaction(params) {
      const data = stringParam(params, 0, 'the transaction');
      const config = configOf(params[1]);
      const encoding = config.encoding ?? 'base58';
      let wire: Uint8Array;
      try {
        if (encoding === 'base64') wire = base64.decode(data);
        else if (encoding === 'base58') wire = base58.decode(data);
        else throw invalid(`unsupported encoding: ${String(encoding)}`);
      } catch (error) {
        if (error instanceof SolanaRpcFault) throw error;
        throw new SolanaRpcFault(-32602, `invalid transaction: failed to decode ${String(encoding)} string`);
      }
      return chain.send(wire, { skipPreflight: config.skipPreflight === true });
    },

    getSignatureStatuses(params) {
      const signatures = params[0];
      if (!Array.isArray(signatures) || signatures.some((s) => typeof s !== 'string')) throw invalid('signatures must be an array of strings');
      if (signatures.length > 256) throw invalid('Too many inputs provided; max 256');
      return { context: context(), value: (signatures as string[]).map((s) => statusOf(chain, chain.record(s))) };
    },

    getSlot: (params) => chain.blockAt(commitmentOf(configOf(params[0]))).slot,
    getBlockHeight: (params) => chain.blockAt(commitmentOf(configOf(params[0]))).height,

    getBalance(params) {
      const address = addressParam(params, 0);
      return { context: context(commitmentOf(configOf(params[1]))), value: chain.balance(address) };
    },

    getMinimumBalanceForRentExemption(params) {
      const bytes = Number(integerParam(params[0] ?? 0, 'the data length'));
      return chain.minimumBalanceForRentExemption(bytes);
    },

    getTokenAccountBalance(params) {
      const address = addressParam(params, 0);
      const account = chain.account(address);
      if (!account) throw invalid('could not find account');
      const token = TOKEN_PROGRAMS.has(account.owner) ? decodeTokenAccount(account.data) : null;
      if (!token) throw invalid('not a Token account');
      const mintData = chain.account(token.mint)?.data;
      const decimals = mintData ? (decodeMint(mintData)?.decimals ?? 0) : 0;
      return { context: context(commitmentOf(configOf(params[1]))), value: uiTokenAmount(token.amount, decimals) };
    },

    getAccountInfo(params) {
      const address = addressParam(params, 0);
      const config = configOf(params[1]);
      const encoding = typeof config.encoding === 'string' ? config.encoding : 'binary';
      return { context: context(commitmentOf(config)), value: renderAccount(chain, address, encoding) };
    },

    getSignaturesForAddress(params) {
      const address = addressParam(params, 0);
      const config = configOf(params[1]);
      const commitment = atLeastConfirmed(config);
      const limit = config.limit === undefined ? 1000 : Number(integerParam(config.limit, 'limit'));
      if (limit < 1 || limit > 1000) throw invalid('Invalid limit; max 1000');
      let list = chain.history(address).filter((r) => visibleAt(chain, r, commitment));
      if (typeof config.before === 'string') {
        const at = list.findIndex((r) => r.signature === config.before);
        list = at < 0 ? [] : list.slice(at + 1);
      }
      if (typeof config.until === 'string') {
        const at = list.findIndex((r) => r.signature === config.until);
        if (at >= 0) list = list.slice(0, at);
      }
      return list.slice(0, limit).map((r) => ({
        signature: r.signature,
        slot: r.block?.slot,
        err: r.err,
        memo: null,
        blockTime: r.block?.blockTime ?? null,
        confirmationStatus: chain.commitmentOf(r),
      }));
    },

    getTransaction(params) {
      const signature = stringParam(params, 0, 'the signature');
      const config = typeof params[1] === 'string' ? { encoding: params[1] } : configOf(params[1]);
      const commitment = atLeastConfirmed(config);
      const encoding = typeof config.encoding === 'string' ? config.encoding : 'json';
      if (!['json', 'jsonParsed', 'base64'].includes(encoding)) throw invalid(`unsupported encoding: ${encoding}`);
      const maxVersion = config.maxSupportedTransactionVersion === undefined ? undefined : Number(config.maxSupportedTransactionVersion);
      const record = chain.record(signature);
      if (!record || !visibleAt(chain, record, commitment)) return null;
      return renderTransaction(record, encoding, maxVersion);
    },

    async requestAirdrop(params) {
      const address = addressParam(params, 0);
      const lamports = integerParam(params[1], 'lamports');
      return chain.fund(address, lamports);
    },
  };
}
