/**
 * Output scripts as Esplora shows them: the type (`p2pkh`, `p2sh`, `v0_p2wpkh`, `v0_p2wsh`, `v1_p2tr`, ...), the
 * address on the node's network, and the assembly text in rust-bitcoin's spelling (`OP_0 OP_PUSHBYTES_20 <hex>`),
 * which is what electrs prints.
 */
import { bech32, bech32m, createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { Address, OutScript } from '@scure/btc-signer';
import { btcSignerNetwork } from '../../../shared/domain/bitcoin.js';

/** Regtest parameters (`bcrt1` addresses). */
export const REGTEST = btcSignerNetwork('local');

const base58check = createBase58check(sha256);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export type EsploraScriptType = 'p2pk' | 'p2pkh' | 'p2sh' | 'v0_p2wpkh' | 'v0_p2wsh' | 'v1_p2tr' | 'op_return' | 'empty' | 'anchor' | 'unknown';

/** The Esplora type of an output script. */
export function scriptType(s: Uint8Array): EsploraScriptType {
  const n = s.length;
  if (n === 0) return 'empty';
  if (s[0] === 0x6a) return 'op_return';
  if ((n === 35 && s[0] === 33 && s[34] === 0xac) || (n === 67 && s[0] === 65 && s[66] === 0xac)) return 'p2pk';
  if (n === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 20 && s[23] === 0x88 && s[24] === 0xac) return 'p2pkh';
  if (n === 23 && s[0] === 0xa9 && s[1] === 20 && s[22] === 0x87) return 'p2sh';
  if (n === 22 && s[0] === 0x00 && s[1] === 20) return 'v0_p2wpkh';
  if (n === 34 && s[0] === 0x00 && s[1] === 32) return 'v0_p2wsh';
  if (n === 34 && s[0] === 0x51 && s[1] === 32) return 'v1_p2tr';
  if (n === 4 && s[0] === 0x51 && s[1] === 2 && s[2] === 0x4e && s[3] === 0x73) return 'anchor';
  return 'unknown';
}

/** The address of an output script on `hrp`'s network, or undefined (p2pk, op_return, unknown...). */
export function scriptAddress(s: Uint8Array, network = REGTEST): string | undefined {
  switch (scriptType(s)) {
    case 'p2pkh':
      return base58check.encode(Uint8Array.of(network.pubKeyHash, ...s.subarray(3, 23)));
    case 'p2sh':
      return base58check.encode(Uint8Array.of(network.scriptHash, ...s.subarray(2, 22)));
    case 'v0_p2wpkh':
    case 'v0_p2wsh':
      return bech32.encode(network.bech32, [0, ...bech32.toWords(s.subarray(2))]);
    case 'v1_p2tr':
      return bech32m.encode(network.bech32, [1, ...bech32m.toWords(s.subarray(2))]);
    case 'anchor':
      return bech32m.encode(network.bech32, [1, ...bech32m.toWords(s.subarray(2))]);
    default:
      return undefined;
  }
}

/** The output script an address of the node's network pays; throws on a malformed or foreign address. */
export function addressScript(address: string, network = REGTEST): Uint8Array {
  return OutScript.encode(Address(network).decode(address));
}

const NAMES: Record<number, string> = {
  0x00: 'OP_0',
  0x4c: 'OP_PUSHDATA1',
  0x4d: 'OP_PUSHDATA2',
  0x4e: 'OP_PUSHDATA4',
  0x4f: 'OP_PUSHNUM_NEG1',
  0x50: 'OP_RESERVED',
};
for (let i = 1; i <= 16; i++) NAMES[0x50 + i] = `OP_PUSHNUM_${i}`;
const LATER =
  'NOP VER IF NOTIF VERIF VERNOTIF ELSE ENDIF VERIFY RETURN TOALTSTACK FROMALTSTACK 2DROP 2DUP 3DUP 2OVER 2ROT 2SWAP IFDUP DEPTH DROP DUP NIP ' +
  'OVER PICK ROLL ROT SWAP TUCK CAT SUBSTR LEFT RIGHT SIZE INVERT AND OR XOR EQUAL EQUALVERIFY RESERVED1 RESERVED2 1ADD 1SUB 2MUL 2DIV ' +
  'NEGATE ABS NOT 0NOTEQUAL ADD SUB MUL DIV MOD LSHIFT RSHIFT BOOLAND BOOLOR NUMEQUAL NUMEQUALVERIFY NUMNOTEQUAL LESSTHAN GREATERTHAN ' +
  'LESSTHANOREQUAL GREATERTHANOREQUAL MIN MAX WITHIN RIPEMD160 SHA1 SHA256 HASH160 HASH256 CODESEPARATOR CHECKSIG CHECKSIGVERIFY ' +
  'CHECKMULTISIG CHECKMULTISIGVERIFY NOP1 CLTV CSV NOP4 NOP5 NOP6 NOP7 NOP8 NOP9 NOP10 CHECKSIGADD';
LATER.split(' ').forEach((name, i) => (NAMES[0x61 + i] = `OP_${name}`));

/** The script's assembly text as electrs prints it (rust-bitcoin's `Script::to_asm_string`). */
export function scriptAsm(s: Uint8Array): string {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const op = s[i++] as number;
    let len = -1;
    if (op >= 0x01 && op <= 0x4b) len = op;
    else if (op === 0x4c) len = s[i++] ?? 0;
    else if (op === 0x4d) {
      len = (s[i] ?? 0) | ((s[i + 1] ?? 0) << 8);
      i += 2;
    } else if (op === 0x4e) {
      len = new DataView(s.buffer, s.byteOffset + i, Math.min(4, s.length - i)).getUint32(0, true);
      i += 4;
    }
    if (len < 0) {
      out.push(NAMES[op] ?? (op <= 0xfe ? `OP_RETURN_${op}` : 'OP_INVALIDOPCODE'));
      continue;
    }
    if (i + len > s.length) {
      out.push('<push past end>');
      break;
    }
    out.push(`${op <= 0x4b ? `OP_PUSHBYTES_${op}` : (NAMES[op] as string)} ${hex(s.subarray(i, i + len))}`);
    i += len;
  }
  return out.join(' ');
}
