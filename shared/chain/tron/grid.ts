/**
 * A client of the TronGrid-compatible HTTP API: java-tron's full-node endpoints (`/wallet/*`, JSON over POST)
 * and TronGrid's v1 event API (`/v1/blocks/{n}/events`). Plain `fetch`, no SDK: it runs in the scanner and the
 * chain-tx workers. Every answer is validated (zod) before use; it counts its calls (bench, tests).
 *
 * Shapes (as the API documents them):
 * - block (`getnowblock`, `getblockbynum`): `{ blockID, block_header: { raw_data: { number, parentHash, timestamp } },
 *   transactions?: [{ txID, raw_data: { contract: [{ type, parameter: { value } }] }, ret?: [{ contractRet }] }] }`;
 *   `{}` for a block that does not exist;
 * - events (`/v1/blocks/{n}/events`, `/v1/transactions/{id}/events`): `{ data: [{ block_number, block_timestamp,
 *   contract_address, event_index, event_name, result, transaction_id, _unconfirmed? }], success, meta: { fingerprint?,
 *   links?: { next } } }`;
 * - an account's TRC-20 transfers (`/v1/accounts/{address}/transactions/trc20`): `{ data: [{ transaction_id,
 *   token_info: { address, decimals, symbol, name }, block_timestamp, from, to, type, value }], success, meta: {
 *   fingerprint? } }`;
 * - account (`getaccount`): `{}` for an address never activated, else `{ address, balance?, create_time? }`;
 * - `broadcasthex`: `{ result: true, txid }` or `{ result: false, code, message }` (message hex-encoded);
 * - `triggerconstantcontract` (a dry run): `{ result: { result: true }, energy_used, constant_result }`; a revert
 *   keeps `result.result` but sets `transaction.ret[0].ret: 'FAILED'` (and a message); a refusal has `result.code`;
 * - `gettransactioninfobyid`: `{}` until the transaction is in a block, then `{ id, blockNumber, fee?,
 *   receipt: { result? }, result?: 'FAILED' }`.
 */
import { hexToBytes } from '@noble/hashes/utils.js';
import * as z from 'zod';

/** The answers' schemas, built when the first answer is parsed (a Lambda that never calls TronGrid never builds them). */
function buildSchemas() {
  const num = z.union([z.number(), z.string().regex(/^\d+$/)]).transform((v) => Number(v));
  /** An amount in sun: never a JS number past parsing. */
  const sun = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]).transform((v) => BigInt(v));

  const BlockSchema = z.object({
    blockID: z.string().regex(/^[0-9a-fA-F]{64}$/),
    block_header: z.object({
      raw_data: z.object({ number: num.default(0), parentHash: z.string().default(''), timestamp: num.default(0) }),
    }),
    transactions: z
      .array(
        z.object({
          txID: z.string(),
          raw_data: z.object({
            contract: z.array(z.object({ type: z.string(), parameter: z.object({ value: z.record(z.string(), z.unknown()) }) })).default([]),
          }),
          ret: z.array(z.object({ contractRet: z.string().optional() })).optional(),
        }),
      )
      .default([]),
  });

  const EventSchema = z.object({
    block_number: num,
    block_timestamp: num.optional(),
    contract_address: z.string(),
    event_index: num,
    event_name: z.string(),
    result: z.record(z.string(), z.union([z.string(), z.number()]).transform(String)),
    transaction_id: z.string(),
    _unconfirmed: z.boolean().optional(),
  });

  const EventsPageSchema = z.object({
    data: z.array(EventSchema).default([]),
    success: z.boolean().optional(),
    meta: z.object({ fingerprint: z.string().optional() }).partial().default({}),
  });

  const Trc20TransferSchema = z.object({
    transaction_id: z.string(),
    token_info: z.object({ address: z.string() }).partial().default({}),
    block_timestamp: num.optional(),
    from: z.string().optional(),
    to: z.string().optional(),
    type: z.string().optional(),
    value: z.union([z.string(), z.number()]).transform(String).optional(),
  });

  const Trc20PageSchema = z.object({
    data: z.array(Trc20TransferSchema).default([]),
    success: z.boolean().optional(),
    meta: z.object({ fingerprint: z.string().optional() }).partial().default({}),
  });

  const AccountSchema = z.object({ address: z.string().optional(), balance: sun.optional() });

  const BroadcastSchema = z.object({
    result: z.boolean().optional(),
    code: z.string().optional(),
    message: z.string().optional(),
    txid: z.string().optional(),
  });

  const ConstantCallSchema = z.object({
    result: z.object({ result: z.boolean().optional(), code: z.string().optional(), message: z.string().optional() }).partial().default({}),
    energy_used: num.optional(),
    constant_result: z.array(z.string()).optional(),
    transaction: z
      .object({ ret: z.array(z.object({ ret: z.string().optional() }).partial()).optional() })
      .partial()
      .optional(),
  });

  const TxInfoSchema = z.object({
    id: z.string().optional(),
    blockNumber: num.optional(),
    fee: sun.optional(),
    result: z.string().optional(),
    receipt: z.object({ result: z.string().optional() }).partial().optional(),
  });
  return { BlockSchema, EventSchema, EventsPageSchema, Trc20TransferSchema, Trc20PageSchema, AccountSchema, BroadcastSchema, ConstantCallSchema, TxInfoSchema };
}

type Schemas = ReturnType<typeof buildSchemas>;
let built: Schemas | undefined;
const schemas = (): Schemas => (built ??= buildSchemas());

export interface TronBlock {
  readonly number: number;
  readonly id: string;
  readonly parentHash: string;
  readonly timestamp: number;
  readonly transactions: z.infer<Schemas['BlockSchema']>['transactions'];
}

export type TronEvent = z.infer<Schemas['EventSchema']>;
export type TronTrc20Transfer = z.infer<Schemas['Trc20TransferSchema']>;

export interface TronTxInfo {
  readonly id: string;
  readonly blockNumber: number;
  /** Sun burnt (energy and bandwidth). */
  readonly fee: bigint;
  /** True unless the transaction failed (`result: 'FAILED'`, or a contract receipt other than SUCCESS). */
  readonly success: boolean;
}

export type TronBroadcastAnswer = z.infer<Schemas['BroadcastSchema']>;

export class TronGridError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TronGridError';
  }
}

export interface TronGridOptions {
  /** Sent as `TRON-PRO-API-KEY`. */
  readonly apiKey?: string;
  readonly timeoutMs?: number;
}

/** The message of a failed broadcast: java-tron sends it hex-encoded. */
export function broadcastMessage(answer: TronBroadcastAnswer): string {
  const message = answer.message ?? '';
  if (/^([0-9a-fA-F]{2})+$/.test(message)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(hexToBytes(message));
    } catch {
      return message;
    }
  }
  return message;
}

export class TronGridClient {
  readonly baseUrl: string;
  readonly #options: TronGridOptions;
  #calls = 0;

  constructor(baseUrl: string, options: TronGridOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#options = options;
  }

  /** HTTP calls made so far. */
  get calls(): number {
    return this.#calls;
  }

  async #request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    this.#calls++;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.#options.apiKey) headers['TRON-PRO-API-KEY'] = this.#options.apiKey;
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      throw new TronGridError(`${method} ${path} failed: ${String(error)}`, { cause: error });
    }
    const text = await response.text();
    if (!response.ok) throw new TronGridError(`${method} ${path} answered ${response.status}: ${text.slice(0, 200)}`);
    try {
      return text === '' ? {} : (JSON.parse(text) as unknown);
    } catch (error) {
      throw new TronGridError(`${method} ${path} answered non-JSON: ${text.slice(0, 200)}`, { cause: error });
    }
  }

  #parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
    const parsed = schema.safeParse(value);
    if (!parsed.success)
      throw new TronGridError(`Unexpected ${what} answer: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return parsed.data;
  }

  #block(value: unknown): TronBlock | null {
    if (value !== null && typeof value === 'object' && Object.keys(value).length === 0) return null;
    const b = this.#parse(schemas().BlockSchema, value, 'block');
    const raw = b.block_header.raw_data;
    return {
      number: raw.number,
      id: b.blockID.toLowerCase(),
      parentHash: raw.parentHash.toLowerCase(),
      timestamp: raw.timestamp,
      transactions: b.transactions,
    };
  }

  async nowBlock(): Promise<TronBlock> {
    const block = this.#block(await this.#request('POST', '/wallet/getnowblock', {}));
    if (!block) throw new TronGridError('getnowblock answered no block');
    return block;
  }

  async blockByNum(number: number): Promise<TronBlock | null> {
    return this.#block(await this.#request('POST', '/wallet/getblockbynum', { num: number, visible: true }));
  }

  /** Every event of a block (all pages: `limit` 200, `fingerprint` for the next). */
  async blockEvents(number: number): Promise<TronEvent[]> {
    const out: TronEvent[] = [];
    let fingerprint: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const query = new URLSearchParams({ limit: '200' });
      if (fingerprint) query.set('fingerprint', fingerprint);
      const answer = this.#parse(schemas().EventsPageSchema, await this.#request('GET', `/v1/blocks/${number}/events?${query.toString()}`), 'events');
      out.push(...answer.data);
      fingerprint = answer.meta.fingerprint;
      if (!fingerprint || answer.data.length === 0) return out;
    }
    throw new TronGridError(`block ${number}: too many event pages`);
  }

  /** A transaction's events (every page), with their block and index as the block's events give them. */
  async transactionEvents(txID: string): Promise<TronEvent[]> {
    const out: TronEvent[] = [];
    let fingerprint: string | undefined;
    for (let page = 0; page < 100; page++) {
      const query = new URLSearchParams({ limit: '200' });
      if (fingerprint) query.set('fingerprint', fingerprint);
      const path = `/v1/transactions/${encodeURIComponent(txID)}/events?${query.toString()}`;
      const answer = this.#parse(schemas().EventsPageSchema, await this.#request('GET', path), 'transaction events');
      out.push(...answer.data);
      fingerprint = answer.meta.fingerprint;
      if (!fingerprint || answer.data.length === 0) return out;
    }
    throw new TronGridError(`transaction ${txID}: too many event pages`);
  }

  /**
   * TRC-20 transfers of one token received by an address since `minTimestamp` (ms), oldest first, every page
   * (`only_to`, `contract_address`; at most `maxPages` pages of 200).
   */
  async trc20TransfersTo(address: string, input: { contract: string; minTimestamp?: number; maxPages?: number }): Promise<TronTrc20Transfer[]> {
    const out: TronTrc20Transfer[] = [];
    let fingerprint: string | undefined;
    const maxPages = input.maxPages ?? 50;
    for (let page = 0; page < maxPages; page++) {
      const query = new URLSearchParams({ only_to: 'true', limit: '200', order_by: 'block_timestamp,asc', contract_address: input.contract });
      if (input.minTimestamp !== undefined) query.set('min_timestamp', String(input.minTimestamp));
      if (fingerprint) query.set('fingerprint', fingerprint);
      const path = `/v1/accounts/${encodeURIComponent(address)}/transactions/trc20?${query.toString()}`;
      const answer = this.#parse(schemas().Trc20PageSchema, await this.#request('GET', path), 'trc20 transfers');
      out.push(...answer.data);
      fingerprint = answer.meta.fingerprint;
      if (!fingerprint || answer.data.length === 0) return out;
    }
    throw new TronGridError(`${address}: more than ${maxPages} pages of TRC-20 transfers`);
  }

  /** An account's TRX balance (sun); `exists: false` for an address never activated. */
  async account(address: string): Promise<{ exists: boolean; balance: bigint }> {
    const a = this.#parse(schemas().AccountSchema, await this.#request('POST', '/wallet/getaccount', { address, visible: true }), 'account');
    return { exists: a.address !== undefined, balance: a.balance ?? 0n };
  }

  async broadcastHex(transactionHex: string): Promise<TronBroadcastAnswer> {
    return this.#parse(schemas().BroadcastSchema, await this.#request('POST', '/wallet/broadcasthex', { transaction: transactionHex }), 'broadcasthex');
  }

  /** Runs a contract call without a transaction (nothing is signed or spent): would it succeed, and for how much energy. */
  async triggerConstant(call: {
    owner: string;
    contract: string;
    data: string;
    callValue: bigint;
  }): Promise<{ ok: boolean; energyUsed: number; message: string }> {
    const answer = this.#parse(
      schemas().ConstantCallSchema,
      await this.#request('POST', '/wallet/triggerconstantcontract', {
        owner_address: call.owner,
        contract_address: call.contract,
        data: call.data.replace(/^0x/, ''),
        call_value: Number(call.callValue),
        visible: true,
      }),
      'triggerconstantcontract',
    );
    const failed = answer.result.result !== true || answer.transaction?.ret?.some((r) => r.ret === 'FAILED') === true;
    return { ok: !failed, energyUsed: answer.energy_used ?? 0, message: broadcastMessage({ message: answer.result.message ?? answer.result.code ?? '' }) };
  }

  /** The transaction's result once it is in a block; null before. */
  async transactionInfo(txID: string): Promise<TronTxInfo | null> {
    const info = this.#parse(schemas().TxInfoSchema, await this.#request('POST', '/wallet/gettransactioninfobyid', { value: txID }), 'transaction info');
    if (info.id === undefined || info.blockNumber === undefined) return null;
    const receiptResult = info.receipt?.result;
    const success = info.result !== 'FAILED' && (receiptResult === undefined || receiptResult === 'SUCCESS');
    return { id: info.id.toLowerCase(), blockNumber: info.blockNumber, fee: info.fee ?? 0n, success };
  }
}
