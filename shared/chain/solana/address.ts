/**
 * Solana addresses (pure, @noble/@scure only): an address is the base58 text of 32 bytes, an Ed25519 public
 * key for a wallet or a program derived address (PDA) that is deliberately off the curve, so that no private key
 * can sign for it. The associated token account of (owner, mint) is the PDA of the seeds
 * [owner, token program, mint] under the associated token account program.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';

/** The System program (`11111111111111111111111111111111`, 32 zero bytes). */
export const SYSTEM_PROGRAM_ADDRESS = '11111111111111111111111111111111';
/** The SPL Token program (the classic one, which mainnet USDT uses). */
export const TOKEN_PROGRAM_ADDRESS = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** The SPL Token-2022 program. */
export const TOKEN_2022_PROGRAM_ADDRESS = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/** The SPL associated token account program. */
export const ASSOCIATED_TOKEN_PROGRAM_ADDRESS = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
/** The compute budget program (priority fees, compute unit limits). */
export const COMPUTE_BUDGET_PROGRAM_ADDRESS = 'ComputeBudget111111111111111111111111111111';

export const MAX_SEEDS = 16;
export const MAX_SEED_BYTES = 32;
const PDA_MARKER = new TextEncoder().encode('ProgramDerivedAddress');

export class SolanaAddressError extends Error {
  readonly code = 'SOLANA_ADDRESS_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'SolanaAddressError';
  }
}

/** The 32 bytes of a base58 address; throws SolanaAddressError for anything else. */
export function decodeSolanaAddress(address: string): Uint8Array {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) throw new SolanaAddressError(`not a base58 Solana address: ${JSON.stringify(address)}`);
  const bytes = base58.decode(address);
  if (bytes.length !== 32) throw new SolanaAddressError(`a Solana address decodes to 32 bytes, ${JSON.stringify(address)} to ${bytes.length}`);
  return bytes;
}

export function isSolanaAddress(address: string): boolean {
  try {
    decodeSolanaAddress(address);
    return true;
  } catch {
    return false;
  }
}

/** The address of 32 bytes (an Ed25519 public key, a PDA, a blockhash). */
export function encodeSolanaAddress(bytes: Uint8Array): string {
  if (bytes.length !== 32) throw new SolanaAddressError(`a Solana address is 32 bytes, got ${bytes.length}`);
  return base58.encode(bytes);
}

/** A wallet's address: its Ed25519 public key in base58. */
export const solanaAddressFromPublicKey = (publicKey: Uint8Array): string => encodeSolanaAddress(publicKey);

/** True when the 32 bytes decode to a point of the Ed25519 curve (a key someone could hold), as the runtime decides. */
export function isOnEd25519Curve(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromBytes(bytes, true);
    return true;
  } catch {
    return false;
  }
}

function checkSeeds(seeds: readonly Uint8Array[]): void {
  if (seeds.length > MAX_SEEDS) throw new SolanaAddressError(`at most ${MAX_SEEDS} seeds, got ${seeds.length}`);
  for (const seed of seeds) {
    if (seed.length > MAX_SEED_BYTES) throw new SolanaAddressError(`a seed is at most ${MAX_SEED_BYTES} bytes, got ${seed.length}`);
  }
}

/** sha256(seeds ‖ program id ‖ "ProgramDerivedAddress"), or null when that lands on the curve (not a valid PDA). */
function programAddressBytes(seeds: readonly Uint8Array[], programId: Uint8Array): Uint8Array | null {
  const hash = sha256.create();
  for (const seed of seeds) hash.update(seed);
  hash.update(programId);
  hash.update(PDA_MARKER);
  const bytes = hash.digest();
  return isOnEd25519Curve(bytes) ? null : bytes;
}

/** `create_program_address`: the PDA of exactly these seeds (bump included by the caller); throws if on the curve. */
export function createProgramAddress(seeds: readonly Uint8Array[], programAddress: string): string {
  checkSeeds(seeds);
  const bytes = programAddressBytes(seeds, decodeSolanaAddress(programAddress));
  if (!bytes) throw new SolanaAddressError('the seeds give a point on the curve: not a valid program address');
  return encodeSolanaAddress(bytes);
}

export interface ProgramDerivedAddress {
  readonly address: string;
  /** The bump seed (255 down to 0): the first that puts the address off the curve. */
  readonly bump: number;
}

/** `find_program_address`: the canonical PDA of the seeds, trying bumps from 255 down. */
export function findProgramAddress(seeds: readonly Uint8Array[], programAddress: string): ProgramDerivedAddress {
  checkSeeds([...seeds, new Uint8Array(1)]);
  const programId = decodeSolanaAddress(programAddress);
  for (let bump = 255; bump >= 0; bump--) {
    const bytes = programAddressBytes([...seeds, Uint8Array.of(bump)], programId);
    if (bytes) return { address: encodeSolanaAddress(bytes), bump };
  }
  throw new SolanaAddressError('no bump seed gives a program address off the curve');
}

/** The associated token account of `owner` for `mint` (the account wallets send that token to). */
export function associatedTokenAddress(owner: string, mint: string, tokenProgram: string = TOKEN_PROGRAM_ADDRESS): string {
  return findProgramAddress([decodeSolanaAddress(owner), decodeSolanaAddress(tokenProgram), decodeSolanaAddress(mint)], ASSOCIATED_TOKEN_PROGRAM_ADDRESS)
    .address;
}
