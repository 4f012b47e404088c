import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import type { Decimal } from './money.js';
import { fromBaseUnits } from './money.js';

/**
 * Bitcoin, pure (DESIGN section 12): the networks a deployment may run on, what a destination address is (every
 * standard output type: P2PKH, P2SH, P2WPKH, P2WSH, P2TR) and on which network, the dust limit of each output type,
 * and the BIP21 URI a wallet opens to pay. No chain adapter here: `@scure/base` decodes, `@noble/hashes` checks.
 */

/** The deployment's Bitcoin network (`BTC_NETWORK`, shared/config/config.ts): `local` is the local stack's regtest node. */
export const BTC_NETWORKS = ['mainnet', 'testnet', 'local'] as const;
export type BtcNetwork = (typeof BTC_NETWORKS)[number];

interface BtcNetworkParams {
  /** How messages name it. */
  readonly name: string;
  /** Bech32 human-readable part. */
  readonly hrp: string;
  /** Base58check version bytes (regtest shares testnet's). */
  readonly pubKeyHash: number;
  readonly scriptHash: number;
  /** WIF version byte (what a private key's text form starts with; the local node's faucet). */
  readonly wif: number;
  /** The address forms it takes, for `expected_format`. */
  readonly forms: string;
}

export const BTC_NETWORK_PARAMS: Readonly<Record<BtcNetwork, BtcNetworkParams>> = {
  mainnet: { name: 'Bitcoin mainnet', hrp: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, wif: 0x80, forms: '1..., 3..., bc1q... or bc1p...' },
  testnet: { name: 'Bitcoin testnet', hrp: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef, forms: 'm.../n..., 2..., tb1q... or tb1p...' },
  local: { name: 'Bitcoin regtest', hrp: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef, forms: 'm.../n..., 2..., bcrt1q... or bcrt1p...' },
};

/** The network's parameters as `@scure/btc-signer` takes them (`{bech32, pubKeyHash, scriptHash, wif}`). */
export const btcSignerNetwork = (network: BtcNetwork): { bech32: string; pubKeyHash: number; scriptHash: number; wif: number } => {
  const { hrp, pubKeyHash, scriptHash, wif } = BTC_NETWORK_PARAMS[network];
  return { bech32: hrp, pubKeyHash, scriptHash, wif };
};

/** The address format a network expects, for `details.expected_format`. */
export const btcExpectedFormat = (network: BtcNetwork): string =>
  `${BTC_NETWORK_PARAMS[network].name} P2PKH, P2SH, P2WPKH, P2WSH or P2TR address (${BTC_NETWORK_PARAMS[network].forms})`;

/** The standard output types a withdrawal may pay. */
export const BTC_OUTPUT_TYPES = ['p2pkh', 'p2sh', 'p2wpkh', 'p2wsh', 'p2tr'] as const;
export type BtcOutputType = (typeof BTC_OUTPUT_TYPES)[number];

/**
 * The dust limit of each output type in satoshis at Bitcoin Core's default dust relay fee (3 sat/vB): an output
 * worth less costs more to spend than it holds, and nodes do not relay the transaction that makes it.
 */
export const BTC_DUST_LIMITS: Readonly<Record<BtcOutputType, bigint>> = { p2pkh: 546n, p2sh: 540n, p2wpkh: 294n, p2wsh: 330n, p2tr: 330n };

export type BtcAddress =
  | {
      readonly valid: true;
      readonly type: BtcOutputType;
      /** Every network the address is valid on (base58 testnet forms are regtest's too). */
      readonly networks: readonly BtcNetwork[];
      /** The hash or witness program the output script carries. */
      readonly program: Uint8Array;
    }
  | { readonly valid: false; readonly error: string };

const invalid = (error: string): BtcAddress => ({ valid: false, error });
const base58check = createBase58check(sha256);

/** Segwit (BIP173 / BIP350): version 0 in bech32 with a 20 or 32-byte program, version 1 in bech32m with 32 bytes. */
function decodeSegwit(address: string): BtcAddress {
  const lower = address.toLowerCase();
  if (address !== lower && address !== address.toUpperCase()) return invalid('A bech32 address is all lower case or all upper case, never mixed.');
  const networks = BTC_NETWORKS.filter((n) => lower.startsWith(`${BTC_NETWORK_PARAMS[n].hrp}1`));
  let words: number[];
  let variant: 'bech32' | 'bech32m';
  try {
    words = bech32.decode(lower as `${string}1${string}`).words;
    variant = 'bech32';
  } catch {
    try {
      words = bech32m.decode(lower as `${string}1${string}`).words;
      variant = 'bech32m';
    } catch {
      return invalid('The address fails its bech32 checksum.');
    }
  }
  const [version, ...data] = words;
  if (version === undefined) return invalid('A segwit address carries a witness version and a program.');
  if (version > 16) return invalid(`Unknown witness version ${version}.`);
  let program: Uint8Array;
  try {
    program = bech32.fromWords(data);
  } catch {
    return invalid('Malformed witness program (padding).');
  }
  if (program.length < 2 || program.length > 40) return invalid('A witness program is 2 to 40 bytes.');
  if (version === 0) {
    if (variant !== 'bech32') return invalid('A witness version 0 address uses the bech32 checksum, not bech32m (BIP350).');
    if (program.length === 20) return { valid: true, type: 'p2wpkh', networks, program };
    if (program.length === 32) return { valid: true, type: 'p2wsh', networks, program };
    return invalid('A witness version 0 program is 20 bytes (P2WPKH) or 32 bytes (P2WSH).');
  }
  if (variant !== 'bech32m') return invalid('A witness version 1+ address uses the bech32m checksum (BIP350).');
  if (version === 1 && program.length === 32) return { valid: true, type: 'p2tr', networks, program };
  return invalid(`A witness version ${version} program of ${program.length} bytes is not a standard output type (P2WPKH, P2WSH or P2TR).`);
}

function decodeBase58(address: string): BtcAddress {
  if (!/^[1-9A-HJ-NP-Za-km-z]{25,35}$/.test(address)) return invalid('Not a Bitcoin address.');
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return invalid('The address fails its base58check checksum.');
  }
  if (payload.length !== 21) return invalid('A base58 Bitcoin address carries a version byte and a 20-byte hash.');
  const version = payload[0] as number;
  const program = payload.subarray(1);
  for (const type of ['p2pkh', 'p2sh'] as const) {
    const networks = BTC_NETWORKS.filter((n) => (type === 'p2pkh' ? BTC_NETWORK_PARAMS[n].pubKeyHash : BTC_NETWORK_PARAMS[n].scriptHash) === version);
    if (networks.length > 0) return { valid: true, type, networks, program };
  }
  return invalid('Not a Bitcoin address (version byte).');
}

/** What an address is, on which networks, whatever the deployment's network. */
export function decodeBtcAddress(address: string): BtcAddress {
  // No base58 Bitcoin address starts with b or t (mainnet 1 and 3, testnet m, n and 2).
  return /^(bc|tb|bcrt)1/i.test(address) ? decodeSegwit(address) : decodeBase58(address);
}

/** An address of `network`'s, or why not (an address of another Bitcoin network names the one expected). */
export function checkBtcAddressOn(address: string, network: BtcNetwork): BtcAddress {
  const decoded = decodeBtcAddress(address);
  if (!decoded.valid || decoded.networks.includes(network)) return decoded;
  const other = BTC_NETWORK_PARAMS[decoded.networks[0] as BtcNetwork].name;
  return invalid(`This is a ${other} address; this gateway pays ${BTC_NETWORK_PARAMS[network].name} addresses (${BTC_NETWORK_PARAMS[network].forms}).`);
}

/** The dust limit of an output of `type`, in satoshis. */
export function btcDustLimit(type: BtcOutputType): bigint {
  return BTC_DUST_LIMITS[type];
}

/** The dust limit of paying `address`, in BTC, or null when the address is not a Bitcoin address. */
export function btcDustMinimum(address: string): Decimal | null {
  const decoded = decodeBtcAddress(address);
  return decoded.valid ? fromBaseUnits(btcDustLimit(decoded.type), 8) : null;
}

/**
 * The BIP21 URI a wallet opens to pay `sats` to `address`: `bitcoin:<address>?amount=<BTC>`, the amount a decimal in
 * BTC without trailing zeros (0.0001, 1, 0.12345678), the address as given.
 */
export function bip21Uri(address: string, sats: bigint): string {
  if (sats <= 0n) return `bitcoin:${address}`;
  return `bitcoin:${address}?amount=${fromBaseUnits(sats, 8)}`;
}
