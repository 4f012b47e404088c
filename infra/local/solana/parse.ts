/**
 * What the local Solana node answers for accounts and transactions, in the shapes of the Solana JSON-RPC API:
 * token accounts and mints decoded from their SPL layouts, token amounts as `uiTokenAmount`, and the instructions
 * the gateway sends rendered as `jsonParsed` does (system transfer, SPL Token transfers and mints, associated
 * token account creation); any other instruction in the unparsed form (`programId`, `accounts`, base58 `data`).
 */
import { base58 } from '@scure/base';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
} from '../../../shared/chain/solana/address.js';

export const TOKEN_PROGRAMS: ReadonlySet<string> = new Set([TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS]);
/** SPL Token layouts: a mint is 82 bytes, a token account 165 (Token-2022 may append extensions). */
export const MINT_BYTES = 82;
export const TOKEN_ACCOUNT_BYTES = 165;

const view = (bytes: Uint8Array): DataView => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const u64At = (bytes: Uint8Array, offset: number): bigint => view(bytes).getBigUint64(offset, true);

export interface TokenAccountData {
  readonly mint: string;
  readonly owner: string;
  readonly amount: bigint;
}

/** A token account's mint, owner and amount, or null for data of another shape. */
export function decodeTokenAccount(data: Uint8Array): TokenAccountData | null {
  if (data.length < TOKEN_ACCOUNT_BYTES || data.length === MINT_BYTES || data[108] === 0) return null;
  return { mint: base58.encode(data.subarray(0, 32)), owner: base58.encode(data.subarray(32, 64)), amount: u64At(data, 64) };
}

/** A mint's decimals and supply, or null. */
export function decodeMint(data: Uint8Array): { decimals: number; supply: bigint } | null {
  if (data.length < MINT_BYTES || data[45] !== 1) return null;
  return { supply: u64At(data, 36), decimals: data[44] as number };
}

/** Encodes an initialised mint (COption authority, supply, decimals, no freeze authority). */
export function encodeMint(input: { mintAuthority: Uint8Array; supply: bigint; decimals: number }): Uint8Array {
  const out = new Uint8Array(MINT_BYTES);
  const v = view(out);
  v.setUint32(0, 1, true);
  out.set(input.mintAuthority, 4);
  v.setBigUint64(36, input.supply, true);
  out[44] = input.decimals;
  out[45] = 1;
  return out;
}

/** Encodes an initialised token account (no delegate, not native, no close authority). */
export function encodeTokenAccount(input: { mint: Uint8Array; owner: Uint8Array; amount: bigint }): Uint8Array {
  const out = new Uint8Array(TOKEN_ACCOUNT_BYTES);
  out.set(input.mint, 0);
  out.set(input.owner, 32);
  view(out).setBigUint64(64, input.amount, true);
  out[108] = 1;
  return out;
}

export interface UiTokenAmount {
  readonly amount: string;
  readonly decimals: number;
  readonly uiAmount: number | null;
  readonly uiAmountString: string;
}

export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  const uiAmountString = fraction ? `${whole}.${fraction}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

export type ParsedInstruction =
  | {
      readonly program: string;
      readonly programId: string;
      readonly parsed: { readonly type: string; readonly info: Record<string, unknown> };
      readonly stackHeight: number | null;
    }
  | { readonly programId: string; readonly accounts: readonly string[]; readonly data: string; readonly stackHeight: number | null };

/** An instruction as `jsonParsed` shows it. */
export function parseInstruction(programId: string, accounts: readonly string[], data: Uint8Array, stackHeight: number | null): ParsedInstruction {
  const parsed = (program: string, type: string, info: Record<string, unknown>): ParsedInstruction => ({
    program,
    programId,
    parsed: { type, info },
    stackHeight,
  });
  const a = (i: number): string => accounts[i] ?? '';
  try {
    if (programId === SYSTEM_PROGRAM_ADDRESS && data.length >= 4) {
      const tag = view(data).getUint32(0, true);
      if (tag === 2 && data.length === 12) return parsed('system', 'transfer', { source: a(0), destination: a(1), lamports: u64At(data, 4) });
      if (tag === 0 && data.length === 52) {
        return parsed('system', 'createAccount', {
          source: a(0),
          newAccount: a(1),
          lamports: u64At(data, 4),
          space: u64At(data, 12),
          owner: base58.encode(data.subarray(20, 52)),
        });
      }
    }
    if (TOKEN_PROGRAMS.has(programId) && data.length >= 1) {
      const tag = data[0];
      if ((tag === 3 || tag === 7) && data.length === 9) {
        const amount = u64At(data, 1).toString();
        return tag === 3
          ? parsed('spl-token', 'transfer', { source: a(0), destination: a(1), authority: a(2), amount })
          : parsed('spl-token', 'mintTo', { mint: a(0), account: a(1), mintAuthority: a(2), amount });
      }
      if ((tag === 12 || tag === 14) && data.length === 10) {
        const tokenAmount = uiTokenAmount(u64At(data, 1), data[9] as number);
        return tag === 12
          ? parsed('spl-token', 'transferChecked', { source: a(0), mint: a(1), destination: a(2), authority: a(3), tokenAmount })
          : parsed('spl-token', 'mintToChecked', { mint: a(0), account: a(1), mintAuthority: a(2), tokenAmount });
      }
      if (tag === 18 && data.length === 33)
        return parsed('spl-token', 'initializeAccount3', { account: a(0), mint: a(1), owner: base58.encode(data.subarray(1)) });
      if (tag === 22) return parsed('spl-token', 'initializeImmutableOwner', { account: a(0) });
      if (tag === 21) return parsed('spl-token', 'getAccountDataSize', { mint: a(0) });
    }
    if (programId === ASSOCIATED_TOKEN_PROGRAM_ADDRESS && (data.length === 0 || (data.length === 1 && data[0] !== undefined && data[0] <= 1))) {
      return parsed('spl-associated-token-account', data[0] === 1 ? 'createIdempotent' : 'create', {
        source: a(0),
        account: a(1),
        wallet: a(2),
        mint: a(3),
        systemProgram: a(4),
        tokenProgram: a(5),
      });
    }
  } catch {
    // Malformed data: shown unparsed, as the node does.
  }
  return { programId, accounts: [...accounts], data: base58.encode(data), stackHeight };
}
