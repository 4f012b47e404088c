/**
 * Solana legacy transactions, built offline (pure, @noble/@scure only; the wire format of the Solana docs):
 *
 *   message     = header [required signatures, read-only signed, read-only unsigned] ‖ shortvec(account keys) ‖
 *                 recent blockhash (32) ‖ shortvec(instructions: program index, shortvec(account indexes), shortvec(data))
 *   transaction = shortvec(signatures, 64 bytes each) ‖ message
 *
 * Account keys are ordered fee payer first, then writable signers, read-only signers, writable non-signers and
 * read-only non-signers (each group in order of first use), which is what the header's three counts describe.
 * The transaction's id is its first signature (the fee payer's), base58. A transaction lives until its blockhash
 * is older than the network's window (about 150 blocks): `lastValidBlockHeight` of getLatestBlockhash.
 */
import { base58, base64 } from '@scure/base';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  associatedTokenAddress,
  decodeSolanaAddress,
} from './address.js';

/** The most bytes a serialised transaction may have (IPv6 MTU minus headers). */
export const MAX_TRANSACTION_BYTES = 1232;

export interface AccountMeta {
  readonly address: string;
  readonly signer: boolean;
  readonly writable: boolean;
}

export interface Instruction {
  readonly programAddress: string;
  readonly accounts: readonly AccountMeta[];
  readonly data: Uint8Array;
}

export class SolanaTransactionError extends Error {
  readonly code: 'SOLANA_TX_TOO_LARGE' | 'SOLANA_TX_INVALID' | 'SOLANA_TX_SIGNER_MISSING';
  constructor(code: SolanaTransactionError['code'], message: string) {
    super(message);
    this.name = 'SolanaTransactionError';
    this.code = code;
  }
}

/** Solana's compact-u16 ("shortvec"): 7 bits a byte, low bits first, high bit set while more follow. */
export function encodeShortVec(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff) throw new RangeError(`shortvec takes 0..65535, got ${value}`);
  const out: number[] = [];
  let rest = value;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(byte);
      return Uint8Array.from(out);
    }
    out.push(byte | 0x80);
  }
}

/** Decodes a shortvec at `offset`: its value and the offset after it. */
export function decodeShortVec(bytes: Uint8Array, offset: number): { value: number; end: number } {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) throw new SolanaTransactionError('SOLANA_TX_INVALID', 'truncated shortvec');
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) {
      if (i > 0 && byte === 0) throw new SolanaTransactionError('SOLANA_TX_INVALID', 'non-minimal shortvec');
      if (value > 0xffff) throw new SolanaTransactionError('SOLANA_TX_INVALID', 'shortvec overflows u16');
      return { value, end: offset + i + 1 };
    }
  }
  throw new SolanaTransactionError('SOLANA_TX_INVALID', 'shortvec longer than 3 bytes');
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

const u64le = (value: bigint): Uint8Array => {
  if (value < 0n || value > 0xffffffffffffffffn) throw new RangeError(`u64 out of range: ${value}`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value, true);
  return out;
};

const u32le = (value: number): Uint8Array => {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`u32 out of range: ${value}`);
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, true);
  return out;
};

// --- Instructions -------------------------------------------------------------------------------------------

const meta = (address: string, signer: boolean, writable: boolean): AccountMeta => ({ address, signer, writable });

/** The data of SPL Token's `...Checked` amount instructions: the instruction's number, the amount (u64) and the mint's decimals (u8). */
function checkedAmountData(instruction: number, amount: bigint, decimals: number): Uint8Array {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) throw new RangeError(`decimals out of range: ${decimals}`);
  return concat([Uint8Array.of(instruction), u64le(amount), Uint8Array.of(decimals)]);
}

/** SPL Token `TransferChecked` (instruction 12): `amount` base units of `mint` (with its `decimals`) from `source` to `destination`, signed by `authority` (the source's owner). */
export function transferCheckedInstruction(input: {
  readonly source: string;
  readonly mint: string;
  readonly destination: string;
  readonly authority: string;
  readonly amount: bigint;
  readonly decimals: number;
  readonly tokenProgram?: string;
}): Instruction {
  return {
    programAddress: input.tokenProgram ?? TOKEN_PROGRAM_ADDRESS,
    accounts: [meta(input.source, false, true), meta(input.mint, false, false), meta(input.destination, false, true), meta(input.authority, true, false)],
    data: checkedAmountData(12, input.amount, input.decimals),
  };
}

/** SPL Token `MintToChecked` (instruction 14): new tokens of `mint` into `destination`, signed by the mint authority. */
export function mintToCheckedInstruction(input: {
  readonly mint: string;
  readonly destination: string;
  readonly authority: string;
  readonly amount: bigint;
  readonly decimals: number;
  readonly tokenProgram?: string;
}): Instruction {
  return {
    programAddress: input.tokenProgram ?? TOKEN_PROGRAM_ADDRESS,
    accounts: [meta(input.mint, false, true), meta(input.destination, false, true), meta(input.authority, true, false)],
    data: checkedAmountData(14, input.amount, input.decimals),
  };
}

/**
 * Associated token account program `CreateIdempotent` (instruction 1): creates `owner`'s token account for `mint`
 * (rent paid by `payer`) unless it exists; a no-op, not an error, when it does.
 */
export function createAssociatedTokenAccountIdempotentInstruction(input: {
  readonly payer: string;
  readonly owner: string;
  readonly mint: string;
  readonly tokenProgram?: string;
}): Instruction {
  const tokenProgram = input.tokenProgram ?? TOKEN_PROGRAM_ADDRESS;
  return {
    programAddress: ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
    accounts: [
      meta(input.payer, true, true),
      meta(associatedTokenAddress(input.owner, input.mint, tokenProgram), false, true),
      meta(input.owner, false, false),
      meta(input.mint, false, false),
      meta(SYSTEM_PROGRAM_ADDRESS, false, false),
      meta(tokenProgram, false, false),
    ],
    data: Uint8Array.of(1),
  };
}

/** System program `Transfer` (instruction 2): lamports from `from` (a signer) to `to`. */
export function systemTransferInstruction(input: { readonly from: string; readonly to: string; readonly lamports: bigint }): Instruction {
  return {
    programAddress: SYSTEM_PROGRAM_ADDRESS,
    accounts: [meta(input.from, true, true), meta(input.to, false, true)],
    data: concat([u32le(2), u64le(input.lamports)]),
  };
}

/** Compute budget `SetComputeUnitLimit` (instruction 2). */
export const setComputeUnitLimitInstruction = (units: number): Instruction => ({
  programAddress: COMPUTE_BUDGET_PROGRAM_ADDRESS,
  accounts: [],
  data: concat([Uint8Array.of(2), u32le(units)]),
});

/** Compute budget `SetComputeUnitPrice` (instruction 3): the priority fee, in micro-lamports per compute unit. */
export const setComputeUnitPriceInstruction = (microLamports: bigint): Instruction => ({
  programAddress: COMPUTE_BUDGET_PROGRAM_ADDRESS,
  accounts: [],
  data: concat([Uint8Array.of(3), u64le(microLamports)]),
});

// --- Messages -----------------------------------------------------------------------------------------------

export interface CompiledMessage {
  /** The serialised message: what every signer signs. */
  readonly bytes: Uint8Array;
  /** Account keys in message order; the first `signers.length` sign, the fee payer first. */
  readonly accountKeys: readonly string[];
  readonly signers: readonly string[];
  readonly recentBlockhash: string;
}

/** Compiles a legacy message: `feePayer` pays the fees and signs first; `recentBlockhash` sets its lifetime. */
export function compileLegacyMessage(input: {
  readonly feePayer: string;
  readonly recentBlockhash: string;
  readonly instructions: readonly Instruction[];
}): CompiledMessage {
  const flags = new Map<string, { signer: boolean; writable: boolean }>();
  const use = (address: string, signer: boolean, writable: boolean): void => {
    decodeSolanaAddress(address);
    const seen = flags.get(address);
    if (seen) {
      seen.signer ||= signer;
      seen.writable ||= writable;
    } else {
      flags.set(address, { signer, writable });
    }
  };
  use(input.feePayer, true, true);
  for (const ix of input.instructions) {
    for (const account of ix.accounts) use(account.address, account.signer, account.writable);
    use(ix.programAddress, false, false);
  }
  for (const ix of input.instructions) {
    if (flags.get(ix.programAddress)?.writable)
      throw new SolanaTransactionError('SOLANA_TX_INVALID', `program ${ix.programAddress} is also a writable account`);
  }
  const entries = [...flags.entries()];
  const group = (signer: boolean, writable: boolean): string[] =>
    entries.filter(([address, f]) => address !== input.feePayer && f.signer === signer && f.writable === writable).map(([address]) => address);
  const writableSigners = [input.feePayer, ...group(true, true)];
  const readonlySigners = group(true, false);
  const writableOthers = group(false, true);
  const readonlyOthers = group(false, false);
  const accountKeys = [...writableSigners, ...readonlySigners, ...writableOthers, ...readonlyOthers];
  if (accountKeys.length > 256) throw new SolanaTransactionError('SOLANA_TX_TOO_LARGE', `${accountKeys.length} accounts: a legacy message holds at most 256`);
  const index = new Map(accountKeys.map((address, i) => [address, i]));

  const header = Uint8Array.of(writableSigners.length + readonlySigners.length, readonlySigners.length, readonlyOthers.length);
  const blockhash = decodeSolanaAddress(input.recentBlockhash);
  const instructions = input.instructions.map((ix) =>
    concat([
      Uint8Array.of(index.get(ix.programAddress) as number),
      encodeShortVec(ix.accounts.length),
      Uint8Array.from(ix.accounts.map((a) => index.get(a.address) as number)),
      encodeShortVec(ix.data.length),
      ix.data,
    ]),
  );
  const bytes = concat([
    header,
    encodeShortVec(accountKeys.length),
    ...accountKeys.map(decodeSolanaAddress),
    blockhash,
    encodeShortVec(instructions.length),
    ...instructions,
  ]);
  return { bytes, accountKeys, signers: [...writableSigners, ...readonlySigners], recentBlockhash: input.recentBlockhash };
}

// --- Signed transactions ------------------------------------------------------------------------------------

export interface SignedTransaction {
  /** The transaction id: the fee payer's signature, base58. */
  readonly signature: string;
  /** The wire bytes (what `sendTransaction` takes, base64). */
  readonly wire: Uint8Array;
  readonly base64: string;
}

/** Something that signs a message as one address (a KMS key, a local keypair). */
export interface MessageSigner {
  getAddress(): Promise<string>;
  signMessage(message: Uint8Array): Promise<Uint8Array>;
}

/** The wire transaction of a message and its signatures (one per required signer, in order). */
export function serializeTransaction(message: CompiledMessage, signatures: readonly Uint8Array[]): SignedTransaction {
  if (signatures.length !== message.signers.length) {
    throw new SolanaTransactionError('SOLANA_TX_SIGNER_MISSING', `${message.signers.length} signatures needed, ${signatures.length} given`);
  }
  for (const s of signatures) if (s.length !== 64) throw new SolanaTransactionError('SOLANA_TX_INVALID', `a signature is 64 bytes, got ${s.length}`);
  const wire = concat([encodeShortVec(signatures.length), ...signatures, message.bytes]);
  if (wire.length > MAX_TRANSACTION_BYTES) {
    throw new SolanaTransactionError('SOLANA_TX_TOO_LARGE', `the transaction is ${wire.length} bytes, at most ${MAX_TRANSACTION_BYTES} are sent`);
  }
  return { signature: base58.encode(signatures[0] as Uint8Array), wire, base64: base64.encode(wire) };
}

/** Signs the message with every required signer (each found by its address) and serialises it. */
export async function signTransaction(message: CompiledMessage, signers: readonly MessageSigner[]): Promise<SignedTransaction> {
  const byAddress = new Map<string, MessageSigner>();
  for (const signer of signers) byAddress.set(await signer.getAddress(), signer);
  const signatures: Uint8Array[] = [];
  for (const address of message.signers) {
    const signer = byAddress.get(address);
    if (!signer) throw new SolanaTransactionError('SOLANA_TX_SIGNER_MISSING', `no signer for ${address}`);
    signatures.push(await signer.signMessage(message.bytes));
  }
  return serializeTransaction(message, signatures);
}

/** The id of a wire transaction (its first signature, base58), e.g. of bytes persisted before a broadcast. */
export function transactionSignatureOf(wire: Uint8Array): string {
  const { value: count, end } = decodeShortVec(wire, 0);
  if (count < 1 || wire.length < end + 64) throw new SolanaTransactionError('SOLANA_TX_INVALID', 'a transaction without its first signature');
  return base58.encode(wire.subarray(end, end + 64));
}

// --- The gateway's transfer ---------------------------------------------------------------------------------

export interface TokenTransferInput {
  /** Pays the fees (and the recipient account's rent when it is created); signs first. */
  readonly feePayer: string;
  /** The sender's wallet: owns the source associated token account and signs. May be the fee payer. */
  readonly owner: string;
  /** The recipient's wallet address: the tokens go to its associated token account. */
  readonly recipient: string;
  readonly mint: string;
  readonly decimals: number;
  /** Base units of the token. */
  readonly amount: bigint;
  readonly recentBlockhash: string;
  /** Create the recipient's associated token account first, idempotently (default true). */
  readonly createRecipientAccount?: boolean;
  readonly tokenProgram?: string;
  /** Priority fee in micro-lamports per compute unit (a SetComputeUnitPrice instruction). */
  readonly computeUnitPrice?: bigint;
  /** A compute unit limit (a SetComputeUnitLimit instruction); a transfer with an account creation uses about 30,000. */
  readonly computeUnitLimit?: number;
}

export interface TokenTransferMessage extends CompiledMessage {
  readonly source: string;
  readonly destination: string;
}

/**
 * The message of an SPL `TransferChecked` of `amount` from `owner`'s associated token account to `recipient`'s,
 * creating the recipient's account in the same transaction when asked (idempotent: a second creation is a no-op),
 * so the transfer never fails for a recipient that has never held the token.
 */
export function buildTokenTransferMessage(input: TokenTransferInput): TokenTransferMessage {
  if (input.amount <= 0n) throw new RangeError(`a transfer moves a positive amount, got ${input.amount}`);
  const tokenProgram = input.tokenProgram ?? TOKEN_PROGRAM_ADDRESS;
  const source = associatedTokenAddress(input.owner, input.mint, tokenProgram);
  const destination = associatedTokenAddress(input.recipient, input.mint, tokenProgram);
  const instructions: Instruction[] = [];
  if (input.computeUnitLimit !== undefined) instructions.push(setComputeUnitLimitInstruction(input.computeUnitLimit));
  if (input.computeUnitPrice !== undefined) instructions.push(setComputeUnitPriceInstruction(input.computeUnitPrice));
  if (input.createRecipientAccount ?? true) {
    instructions.push(createAssociatedTokenAccountIdempotentInstruction({ payer: input.feePayer, owner: input.recipient, mint: input.mint, tokenProgram }));
  }
  instructions.push(
    transferCheckedInstruction({ source, mint: input.mint, destination, authority: input.owner, amount: input.amount, decimals: input.decimals, tokenProgram }),
  );
  return { ...compileLegacyMessage({ feePayer: input.feePayer, recentBlockhash: input.recentBlockhash, instructions }), source, destination };
}

// --- Decoding -----------------------------------------------------------------------------------------------

export interface DecodedInstruction {
  readonly programIdIndex: number;
  readonly accountIndexes: readonly number[];
  readonly data: Uint8Array;
}

export interface DecodedTransaction {
  readonly signatures: readonly Uint8Array[];
  readonly version: 'legacy' | 0;
  /** The signed bytes. */
  readonly messageBytes: Uint8Array;
  readonly header: { readonly requiredSignatures: number; readonly readonlySigned: number; readonly readonlyUnsigned: number };
  /** The static account keys (a v0 message may load more through lookup tables: `lookups`). */
  readonly accountKeys: readonly string[];
  readonly recentBlockhash: string;
  readonly instructions: readonly DecodedInstruction[];
  /** v0 address table lookups (none in a legacy message). */
  readonly lookups: number;
}

/** Parses a wire transaction (legacy or v0); throws SolanaTransactionError on malformed bytes. */
export function decodeTransaction(wire: Uint8Array): DecodedTransaction {
  const fail = (what: string): never => {
    throw new SolanaTransactionError('SOLANA_TX_INVALID', what);
  };
  let offset = 0;
  const take = (n: number): Uint8Array => {
    if (offset + n > wire.length) fail('truncated transaction');
    const out = wire.subarray(offset, offset + n);
    offset += n;
    return out;
  };
  const shortvec = (): number => {
    const { value, end } = decodeShortVec(wire, offset);
    offset = end;
    return value;
  };
  const byte = (): number => take(1)[0] as number;

  const signatureCount = shortvec();
  const signatures = Array.from({ length: signatureCount }, () => Uint8Array.from(take(64)));
  const messageStart = offset;
  let version: 'legacy' | 0 = 'legacy';
  if (((wire[offset] ?? 0) & 0x80) !== 0) {
    const v = byte() & 0x7f;
    if (v !== 0) fail(`unsupported transaction version ${v}`);
    version = 0;
  }
  const header = { requiredSignatures: byte(), readonlySigned: byte(), readonlyUnsigned: byte() };
  const accountKeys = Array.from({ length: shortvec() }, () => base58.encode(take(32)));
  const recentBlockhash = base58.encode(take(32));
  const instructions = Array.from({ length: shortvec() }, (): DecodedInstruction => {
    const programIdIndex = byte();
    const accountIndexes = Array.from(take(shortvec()));
    const data = Uint8Array.from(take(shortvec()));
    return { programIdIndex, accountIndexes, data };
  });
  let lookups = 0;
  if (version === 0) {
    lookups = shortvec();
    for (let i = 0; i < lookups; i++) {
      take(32);
      take(shortvec());
      take(shortvec());
    }
  }
  if (offset !== wire.length) fail('trailing bytes after the message');
  if (signatureCount !== header.requiredSignatures) fail(`${header.requiredSignatures} signatures required, ${signatureCount} present`);
  if (header.requiredSignatures === 0 || header.requiredSignatures > accountKeys.length) fail('bad signature count');
  if (header.readonlySigned >= header.requiredSignatures || header.readonlyUnsigned > accountKeys.length - header.requiredSignatures) fail('bad header');
  const total = accountKeys.length + (lookups > 0 ? 256 : 0);
  for (const ix of instructions) {
    if (ix.programIdIndex >= total || ix.accountIndexes.some((i) => i >= total)) fail('an instruction refers to an account the message does not have');
  }
  return { signatures, version, messageBytes: wire.subarray(messageStart), header, accountKeys, recentBlockhash, instructions, lookups };
}

/** Whether the account at `index` of a message signs, and whether it is writable (what the header says). */
export function accountRole(tx: Pick<DecodedTransaction, 'header' | 'accountKeys'>, index: number): { signer: boolean; writable: boolean } {
  const { requiredSignatures, readonlySigned, readonlyUnsigned } = tx.header;
  if (index < requiredSignatures) return { signer: true, writable: index < requiredSignatures - readonlySigned };
  return { signer: false, writable: index < tx.accountKeys.length - readonlyUnsigned };
}
