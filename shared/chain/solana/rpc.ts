/**
 * A client of the Solana JSON-RPC API (the methods the gateway calls, shapes as the Solana RPC docs give them):
 * plain `fetch`, no SDK, so that it may run in any Lambda. Answers are parsed losslessly (an integer past 2^53
 * stays exact) and validated with zod; amounts come out as bigint base units (lamports, token base units);
 * slots and block heights as numbers (they stay far below 2^53).
 *
 * `SolanaRpcPort` is the port: the use cases and the helpers next to this file (deposits.ts, expiry.ts) take it,
 * tests pass fakes.
 */
import { base64 } from '@scure/base';
import { isInteger, isSafeNumber, parse } from 'lossless-json';
import * as z from 'zod';
import { transactionSignatureOf } from './transaction.js';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** JSON numbers as JS numbers, except integers past 2^53 (lamports, u64 fields), which stay exact as bigint. */
const parseNumber = (text: string): number | bigint => (!isSafeNumber(text) && isInteger(text) ? BigInt(text) : Number(text));

/** JSON-RPC error codes the gateway acts on (the node's `RpcCustomError` codes). */
export const RPC_ERROR = {
  /** Preflight simulation failed: `data.err` is the TransactionError (`BlockhashNotFound`, `AlreadyProcessed`, `{InstructionError: ...}`). */
  SEND_TRANSACTION_PREFLIGHT_FAILURE: -32002,
  /** Bad parameters; also `getTokenAccountBalance` of an account that does not exist ("could not find account"). */
  INVALID_PARAMS: -32602,
} as const;

export class SolanaRpcError extends Error {
  readonly code: number | 'HTTP' | 'NETWORK' | 'UNEXPECTED_ANSWER';
  readonly data: unknown;
  constructor(code: SolanaRpcError['code'], message: string, options: { data?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SolanaRpcError';
    this.code = code;
    this.data = options.data;
  }

  /** The TransactionError of a failed preflight (`'BlockhashNotFound'`, `{ InstructionError: [...] }`), if any. */
  get transactionError(): unknown {
    return this.code === RPC_ERROR.SEND_TRANSACTION_PREFLIGHT_FAILURE && typeof this.data === 'object' && this.data !== null
      ? (this.data as { err?: unknown }).err
      : undefined;
  }
}

/** True when a send failed because the node does not know the transaction's blockhash (too old, or from another cluster). */
export const isBlockhashNotFound = (error: unknown): boolean => error instanceof SolanaRpcError && error.transactionError === 'BlockhashNotFound';

// --- Answers ------------------------------------------------------------------------------------------------

/** The answers' schemas, built when the first answer is parsed (a Lambda that never calls the node never builds them). */
function buildSchemas() {
  const integer = z.union([z.number().int(), z.bigint()]);
  const num = integer.transform((v) => Number(v));
  const big = z.union([integer, z.string().regex(/^\d+$/)]).transform((v) => BigInt(v));
  const commitmentSchema = z.enum(['processed', 'confirmed', 'finalized']);
  const context = z.object({ slot: num });

  const LatestBlockhashSchema = z.object({ context, value: z.object({ blockhash: z.string(), lastValidBlockHeight: num }) });

  const StatusSchema = z
    .object({
      slot: num,
      confirmations: num.nullable(),
      err: z.unknown().nullable().default(null),
      confirmationStatus: commitmentSchema.nullable().default(null),
    })
    .nullable();
  const StatusesSchema = z.object({ context, value: z.array(StatusSchema) });

  const TokenAmountSchema = z.object({ amount: big, decimals: z.number().int(), uiAmountString: z.string().optional() });
  const TokenBalanceSchema = z.object({ context, value: TokenAmountSchema });

  const SignatureInfoSchema = z.object({
    signature: z.string(),
    slot: num,
    err: z.unknown().nullable().default(null),
    memo: z.string().nullable().default(null),
    blockTime: num.nullable().default(null),
    confirmationStatus: commitmentSchema.nullable().default(null),
  });

  const ParsedTokenBalanceSchema = z.object({
    accountIndex: z.number().int(),
    mint: z.string(),
    owner: z.string().optional(),
    programId: z.string().optional(),
    uiTokenAmount: TokenAmountSchema,
  });

  const ParsedTransactionSchema = z
    .object({
      slot: num,
      blockTime: num.nullable().default(null),
      version: z.union([z.literal('legacy'), z.number()]).optional(),
      meta: z
        .object({
          err: z.unknown().nullable().default(null),
          fee: big,
          preBalances: z.array(big).default([]),
          postBalances: z.array(big).default([]),
          preTokenBalances: z.array(ParsedTokenBalanceSchema).default([]),
          postTokenBalances: z.array(ParsedTokenBalanceSchema).default([]),
          logMessages: z.array(z.string()).nullable().default(null),
        })
        .nullable(),
      transaction: z.object({
        signatures: z.array(z.string()),
        message: z.object({
          accountKeys: z.array(z.object({ pubkey: z.string(), signer: z.boolean(), writable: z.boolean() })),
          recentBlockhash: z.string(),
          instructions: z.array(z.record(z.string(), z.unknown())),
        }),
      }),
    })
    .nullable();

  const AccountInfoSchema = z.object({
    context,
    value: z
      .object({
        lamports: big,
        owner: z.string(),
        data: z.tuple([z.string(), z.literal('base64')]),
        executable: z.boolean(),
        space: num.optional(),
      })
      .nullable(),
  });

  const BalanceSchema = z.object({ context, value: big });
  return {
    num,
    LatestBlockhashSchema,
    StatusSchema,
    StatusesSchema,
    TokenAmountSchema,
    TokenBalanceSchema,
    SignatureInfoSchema,
    ParsedTokenBalanceSchema,
    ParsedTransactionSchema,
    AccountInfoSchema,
    BalanceSchema,
  };
}

type Schemas = ReturnType<typeof buildSchemas>;
let built: Schemas | undefined;
const schemas = (): Schemas => (built ??= buildSchemas());

export interface LatestBlockhash {
  readonly blockhash: string;
  /** The last block height at which a transaction referring to this blockhash can be included. */
  readonly lastValidBlockHeight: number;
  /** The slot the node answered at. */
  readonly slot: number;
}

export interface SignatureStatus {
  readonly slot: number;
  /** Blocks confirming it since; null once rooted (finalized). */
  readonly confirmations: number | null;
  /** The TransactionError when it executed and failed (fees paid, nothing else done); null on success. */
  readonly err: unknown;
  readonly confirmationStatus: Commitment | null;
}

export interface TokenAmount {
  /** Base units. */
  readonly amount: bigint;
  readonly decimals: number;
}

export type SignatureInfo = z.infer<Schemas['SignatureInfoSchema']>;
export type ParsedTokenBalance = z.infer<Schemas['ParsedTokenBalanceSchema']>;
export type ParsedTransaction = NonNullable<z.infer<Schemas['ParsedTransactionSchema']>>;

export interface AccountInfo {
  readonly lamports: bigint;
  /** The program owning the account (System for a wallet, the token program for a token account). */
  readonly owner: string;
  readonly data: Uint8Array;
  readonly executable: boolean;
}

export interface SendOptions {
  /** Default false: the node simulates first and refuses a transaction that would fail (`SolanaRpcError` -32002). */
  readonly skipPreflight?: boolean;
  readonly preflightCommitment?: Commitment;
  /** How often the node re-forwards it to leaders (default: the node's own policy). */
  readonly maxRetries?: number;
}

/** The Solana JSON-RPC methods the gateway uses. */
export interface SolanaRpcPort {
  getLatestBlockhash(commitment?: Commitment): Promise<LatestBlockhash>;
  /** Sends a signed transaction (base64 wire bytes); returns its signature. One already processed is an answer, not an error. */
  sendTransaction(transactionBase64: string, options?: SendOptions): Promise<string>;
  /** Statuses of up to 256 signatures (null: unknown to the node); `searchTransactionHistory` looks past the recent cache. */
  getSignatureStatuses(signatures: readonly string[], options?: { searchTransactionHistory?: boolean }): Promise<(SignatureStatus | null)[]>;
  getSlot(commitment?: Commitment): Promise<number>;
  getBlockHeight(commitment?: Commitment): Promise<number>;
  /** Lamports of an account (0 for one that does not exist). */
  getBalance(address: string, commitment?: Commitment): Promise<bigint>;
  /** A token account's balance; null when the account does not exist. */
  getTokenAccountBalance(address: string, commitment?: Commitment): Promise<TokenAmount | null>;
  /** Signatures of transactions touching `address`, newest first, strictly between `until` and `before`. */
  getSignaturesForAddress(
    address: string,
    options?: { before?: string; until?: string; limit?: number; commitment?: Exclude<Commitment, 'processed'> },
  ): Promise<SignatureInfo[]>;
  /** A transaction with parsed instructions and token balances (jsonParsed); null when unknown or not yet at `commitment`. */
  getTransaction(signature: string, commitment?: Exclude<Commitment, 'processed'>): Promise<ParsedTransaction | null>;
  getAccountInfo(address: string, commitment?: Commitment): Promise<AccountInfo | null>;
}

export interface SolanaRpcOptions {
  readonly timeoutMs?: number;
  /** Extra headers (an RPC provider's key, say). */
  readonly headers?: Readonly<Record<string, string>>;
}

export class SolanaRpc implements SolanaRpcPort {
  readonly url: string;
  readonly #options: SolanaRpcOptions;
  #id = 0;
  #calls = 0;

  constructor(url: string, options: SolanaRpcOptions = {}) {
    this.url = url;
    this.#options = options;
  }

  /** HTTP calls made so far (bench, tests). */
  get calls(): number {
    return this.#calls;
  }

  async #call<T>(method: string, params: unknown[], schema: z.ZodType<T>): Promise<T> {
    this.#calls++;
    const id = ++this.#id;
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...this.#options.headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      throw new SolanaRpcError('NETWORK', `${method} failed: ${String(error)}`, { cause: error });
    }
    const text = await response.text();
    if (!response.ok) throw new SolanaRpcError('HTTP', `${method} answered HTTP ${response.status}: ${text.slice(0, 200)}`);
    let answer: { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    try {
      answer = parse(text, null, parseNumber) as typeof answer;
    } catch (error) {
      throw new SolanaRpcError('UNEXPECTED_ANSWER', `${method} answered non-JSON: ${text.slice(0, 200)}`, { cause: error });
    }
    if (answer.error) {
      const code = typeof answer.error.code === 'bigint' ? Number(answer.error.code) : answer.error.code;
      throw new SolanaRpcError(typeof code === 'number' ? code : 'UNEXPECTED_ANSWER', `${method}: ${String(answer.error.message)}`, {
        data: answer.error.data,
      });
    }
    const parsed = schema.safeParse(answer.result);
    if (!parsed.success) {
      throw new SolanaRpcError(
        'UNEXPECTED_ANSWER',
        `unexpected ${method} answer: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    }
    return parsed.data;
  }

  async getLatestBlockhash(commitment: Commitment = 'confirmed'): Promise<LatestBlockhash> {
    const { context: ctx, value } = await this.#call('getLatestBlockhash', [{ commitment }], schemas().LatestBlockhashSchema);
    return { blockhash: value.blockhash, lastValidBlockHeight: value.lastValidBlockHeight, slot: ctx.slot };
  }

  async sendTransaction(transactionBase64: string, options: SendOptions = {}): Promise<string> {
    const config = {
      encoding: 'base64',
      skipPreflight: options.skipPreflight ?? false,
      preflightCommitment: options.preflightCommitment ?? 'confirmed',
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    };
    try {
      return await this.#call('sendTransaction', [transactionBase64, config], z.string());
    } catch (error) {
      // The same bytes sent again after they landed: the transaction is there, which is what the caller wants.
      if (error instanceof SolanaRpcError && error.transactionError === 'AlreadyProcessed') return transactionSignatureOf(base64.decode(transactionBase64));
      throw error;
    }
  }

  async getSignatureStatuses(signatures: readonly string[], options: { searchTransactionHistory?: boolean } = {}): Promise<(SignatureStatus | null)[]> {
    if (signatures.length > 256) throw new RangeError(`getSignatureStatuses takes at most 256 signatures, got ${signatures.length}`);
    if (signatures.length === 0) return [];
    const { value } = await this.#call(
      'getSignatureStatuses',
      [signatures, { searchTransactionHistory: options.searchTransactionHistory ?? false }],
      schemas().StatusesSchema,
    );
    if (value.length !== signatures.length)
      throw new SolanaRpcError('UNEXPECTED_ANSWER', `getSignatureStatuses answered ${value.length} statuses for ${signatures.length}`);
    return value;
  }

  getSlot(commitment: Commitment = 'confirmed'): Promise<number> {
    return this.#call('getSlot', [{ commitment }], schemas().num);
  }

  getBlockHeight(commitment: Commitment = 'confirmed'): Promise<number> {
    return this.#call('getBlockHeight', [{ commitment }], schemas().num);
  }

  async getBalance(address: string, commitment: Commitment = 'confirmed'): Promise<bigint> {
    return (await this.#call('getBalance', [address, { commitment }], schemas().BalanceSchema)).value;
  }

  async getTokenAccountBalance(address: string, commitment: Commitment = 'confirmed'): Promise<TokenAmount | null> {
    try {
      const { value } = await this.#call('getTokenAccountBalance', [address, { commitment }], schemas().TokenBalanceSchema);
      return { amount: value.amount, decimals: value.decimals };
    } catch (error) {
      if (error instanceof SolanaRpcError && error.code === RPC_ERROR.INVALID_PARAMS && /could not find account/i.test(error.message)) return null;
      throw error;
    }
  }

  getSignaturesForAddress(
    address: string,
    options: { before?: string; until?: string; limit?: number; commitment?: Exclude<Commitment, 'processed'> } = {},
  ): Promise<SignatureInfo[]> {
    const config = {
      commitment: options.commitment ?? 'confirmed',
      ...(options.limit === undefined ? {} : { limit: options.limit }),
      ...(options.before === undefined ? {} : { before: options.before }),
      ...(options.until === undefined ? {} : { until: options.until }),
    };
    return this.#call('getSignaturesForAddress', [address, config], z.array(schemas().SignatureInfoSchema));
  }

  getTransaction(signature: string, commitment: Exclude<Commitment, 'processed'> = 'confirmed'): Promise<ParsedTransaction | null> {
    return this.#call(
      'getTransaction',
      [signature, { commitment, encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }],
      schemas().ParsedTransactionSchema,
    );
  }

  async getAccountInfo(address: string, commitment: Commitment = 'confirmed'): Promise<AccountInfo | null> {
    const { value } = await this.#call('getAccountInfo', [address, { commitment, encoding: 'base64' }], schemas().AccountInfoSchema);
    if (!value) return null;
    return { lamports: value.lamports, owner: value.owner, data: base64.decode(value.data[0]), executable: value.executable };
  }
}
