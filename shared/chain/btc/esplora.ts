/**
 * A client of an Esplora-compatible HTTP API (Blockstream's esplora/electrs, self-hosted or a provider; the local
 * stack's Bitcoin node answers the same routes). Plain `fetch`, no SDK: it runs in the scanner and the chain-tx
 * workers. Every JSON answer is validated (zod) before use; it counts its calls (bench, tests).
 *
 * Routes and shapes (Blockstream esplora `API.md`; amounts always in satoshis):
 * - `GET /blocks/tip/height` and `/blocks/tip/hash`: plain text;
 * - `GET /block-height/:height`: the hash as plain text, 404 past the tip;
 * - `GET /block/:hash/raw`: the block's consensus serialisation (binary);
 * - `GET /tx/:txid`: `{ txid, version, locktime, size, weight, fee, vin: [{ txid, vout, is_coinbase, scriptsig,
 *   witness?, sequence, prevout }], vout: [{ scriptpubkey, scriptpubkey_type, scriptpubkey_address?, value }],
 *   status }`, 404 for a transaction neither in the mempool nor in the chain;
 * - `GET /tx/:txid/status`: `{ confirmed, block_height?, block_hash?, block_time? }` (electrs answers
 *   `{ confirmed: false }` for a transaction it does not know at all, so "unconfirmed" is not "in the mempool");
 * - `GET /tx/:txid/hex`: plain text; `GET /tx/:txid/outspend/:vout`: `{ spent, txid?, vin?, status? }`;
 * - `GET /address/:address/utxo`: `[{ txid, vout, value, status }]`;
 * - `GET /address/:address/txs/mempool`: up to 50 unconfirmed transactions (the `/tx/:txid` shape);
 * - `GET /mempool/txids`: every txid in the mempool;
 * - `GET /fee-estimates`: `{ "<target blocks>": <sat/vB> }`;
 * - `POST /tx` (the hex as the body): the txid as plain text, or a 400 whose text is the node's refusal.
 */
import * as z from 'zod';

const hex64 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/)
  .transform((v) => v.toLowerCase());
const sats = z.number().int().nonnegative();

/** The answers' schemas, built when the first answer is parsed (a Lambda that never calls the API never builds them). */
function buildSchemas() {
  const Status = z.object({
    confirmed: z.boolean(),
    block_height: z.number().int().nonnegative().nullish(),
    block_hash: hex64.nullish(),
    block_time: z.number().nullish(),
  });
  const Output = z.object({
    scriptpubkey: z.string(),
    scriptpubkey_type: z.string().optional(),
    scriptpubkey_address: z.string().nullish(),
    value: sats,
  });
  const Input = z.object({
    txid: z.string(),
    vout: z.number().int(),
    is_coinbase: z.boolean().default(false),
    scriptsig: z.string().default(''),
    witness: z.array(z.string()).nullish(),
    sequence: z.number().int().nonnegative(),
    prevout: Output.nullish(),
  });
  const Tx = z.object({
    txid: hex64,
    version: z.number().int(),
    locktime: z.number().int().nonnegative(),
    size: z.number().int().optional(),
    weight: z.number().int().optional(),
    fee: sats.optional(),
    vin: z.array(Input),
    vout: z.array(Output),
    status: Status.optional(),
  });
  const Utxo = z.object({ txid: hex64, vout: z.number().int().nonnegative(), value: sats, status: Status });
  const Outspend = z.object({ spent: z.boolean(), txid: hex64.nullish(), vin: z.number().int().nullish(), status: Status.nullish() });
  const FeeEstimates = z.record(z.string(), z.number().nonnegative());
  return { Status, Tx, Utxo, Outspend, FeeEstimates, Txids: z.array(hex64), Utxos: z.array(Utxo), Txs: z.array(Tx) };
}

type Schemas = ReturnType<typeof buildSchemas>;
let built: Schemas | undefined;
const schemas = (): Schemas => (built ??= buildSchemas());

export type EsploraStatus = z.infer<Schemas['Status']>;
export type EsploraTx = z.infer<Schemas['Tx']>;
export type EsploraUtxo = z.infer<Schemas['Utxo']>;
export type EsploraOutspend = z.infer<Schemas['Outspend']>;
export type EsploraBroadcast = { readonly ok: true; readonly txid: string } | { readonly ok: false; readonly message: string };

export class EsploraError extends Error {
  /** The HTTP status when the API answered one. */
  readonly status: number | undefined;
  constructor(message: string, options?: { cause?: unknown; status?: number }) {
    super(message, options);
    this.name = 'EsploraError';
    this.status = options?.status;
  }
}

export interface EsploraOptions {
  /** Per request (default 10 s). */
  readonly timeoutMs?: number;
}

interface Answer {
  readonly status: number;
  readonly body: Uint8Array;
}

const decoder = new TextDecoder();

export class EsploraClient {
  readonly baseUrl: string;
  readonly #timeoutMs: number;
  #calls = 0;

  constructor(baseUrl: string, options: EsploraOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** HTTP calls made so far. */
  get calls(): number {
    return this.#calls;
  }

  /** One request; a 404 is returned (callers decide what absence means), any other failure throws. */
  async #request(method: 'GET' | 'POST', path: string, body?: string): Promise<Answer> {
    this.#calls++;
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        ...(body === undefined ? {} : { body, headers: { 'content-type': 'text/plain' } }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw new EsploraError(`${method} ${path} failed: ${String(error)}`, { cause: error });
    }
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      throw new EsploraError(`${method} ${path}: the answer could not be read: ${String(error)}`, { cause: error });
    }
    const answer = { status: response.status, body: bytes };
    if (response.ok || response.status === 404 || (method === 'POST' && response.status === 400)) return answer;
    throw new EsploraError(`${method} ${path} answered ${response.status}: ${decoder.decode(bytes).slice(0, 200)}`, { status: response.status });
  }

  async #get(path: string): Promise<Answer | null> {
    const answer = await this.#request('GET', path);
    return answer.status === 404 ? null : answer;
  }

  async #text(path: string): Promise<string | null> {
    const answer = await this.#get(path);
    return answer === null ? null : decoder.decode(answer.body).trim();
  }

  async #json<T>(path: string, schema: z.ZodType<T>): Promise<T | null> {
    const text = await this.#text(path);
    if (text === null) return null;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new EsploraError(`GET ${path} answered non-JSON: ${text.slice(0, 200)}`, { cause: error });
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new EsploraError(`GET ${path}: unexpected answer: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    }
    return parsed.data;
  }

  static #required<T>(value: T | null, path: string): T {
    if (value === null) throw new EsploraError(`GET ${path} answered 404`, { status: 404 });
    return value;
  }

  /** The height of the newest block. */
  async tipHeight(): Promise<number> {
    const path = '/blocks/tip/height';
    const text = EsploraClient.#required(await this.#text(path), path);
    if (!/^\d+$/.test(text)) throw new EsploraError(`GET ${path} answered ${text.slice(0, 80)}`);
    return Number(text);
  }

  /** The hash of the newest block. */
  async tipHash(): Promise<string> {
    const path = '/blocks/tip/hash';
    return EsploraClient.#hash(EsploraClient.#required(await this.#text(path), path), path);
  }

  /** The hash of the best chain's block at `height`; null past the tip. */
  async blockHash(height: number): Promise<string | null> {
    if (!Number.isSafeInteger(height) || height < 0) return null;
    const path = `/block-height/${height}`;
    const text = await this.#text(path);
    return text === null ? null : EsploraClient.#hash(text, path);
  }

  /** A block's raw bytes (header and transactions, as serialised on the wire). */
  async blockRaw(hash: string): Promise<Uint8Array> {
    const path = `/block/${EsploraClient.#hash(hash, 'block hash')}/raw`;
    return EsploraClient.#required(await this.#get(path), path).body;
  }

  /** A transaction in the mempool or the chain; null when the API knows none of that id. */
  async tx(txid: string): Promise<EsploraTx | null> {
    return this.#json(`/tx/${EsploraClient.#hash(txid, 'txid')}`, schemas().Tx);
  }

  /** A transaction's confirmation status (`{confirmed: false}` also for one the API does not know: see `tx`). */
  async txStatus(txid: string): Promise<EsploraStatus | null> {
    return this.#json(`/tx/${EsploraClient.#hash(txid, 'txid')}/status`, schemas().Status);
  }

  /** A transaction's raw hex; null when unknown. */
  async txHex(txid: string): Promise<string | null> {
    const text = await this.#text(`/tx/${EsploraClient.#hash(txid, 'txid')}/hex`);
    if (text !== null && !/^([0-9a-fA-F]{2})+$/.test(text)) throw new EsploraError(`GET /tx/${txid}/hex answered ${text.slice(0, 80)}`);
    return text === null ? null : text.toLowerCase();
  }

  /** Whether an output is spent, and by which transaction (null when the transaction is unknown). */
  async outspend(txid: string, vout: number): Promise<EsploraOutspend | null> {
    return this.#json(`/tx/${EsploraClient.#hash(txid, 'txid')}/outspend/${vout}`, schemas().Outspend);
  }

  /** An address's unspent outputs, confirmed and not. */
  async addressUtxo(address: string): Promise<EsploraUtxo[]> {
    return (await this.#json(`/address/${encodeURIComponent(address)}/utxo`, schemas().Utxos)) ?? [];
  }

  /** An address's unconfirmed transactions (the API answers at most 50, newest first). */
  async addressMempoolTxs(address: string): Promise<EsploraTx[]> {
    return (await this.#json(`/address/${encodeURIComponent(address)}/txs/mempool`, schemas().Txs)) ?? [];
  }

  /** Every transaction id in the mempool. */
  async mempoolTxids(): Promise<string[]> {
    return (await this.#json('/mempool/txids', schemas().Txids)) ?? [];
  }

  /** Fee rates in sat/vB by confirmation target in blocks (`{"2": 12.5, "6": 8, ...}`). */
  async feeEstimates(): Promise<Record<string, number>> {
    return (await this.#json('/fee-estimates', schemas().FeeEstimates)) ?? {};
  }

  /** Broadcasts a raw transaction: its txid, or the node's refusal (a 400 and its text). */
  async broadcast(hex: string): Promise<EsploraBroadcast> {
    const answer = await this.#request('POST', '/tx', hex);
    const text = decoder.decode(answer.body).trim();
    if (answer.status === 200 && /^[0-9a-fA-F]{64}$/.test(text)) return { ok: true, txid: text.toLowerCase() };
    if (answer.status === 200) throw new EsploraError(`POST /tx answered 200 without a txid: ${text.slice(0, 200)}`);
    return { ok: false, message: text || `HTTP ${answer.status}` };
  }

  static #hash(value: string, what: string): string {
    if (!/^[0-9a-fA-F]{64}$/.test(value)) throw new EsploraError(`${what}: not a 32-byte hash: ${value.slice(0, 80)}`);
    return value.toLowerCase();
  }
}
