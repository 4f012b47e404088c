import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { BTC_HRP, depositAddress, depositTag, depositWitnessScript, p2wshAddress, p2wshOutputScript } from '../../../shared/chain/btc/p2wsh.js';
import type { BtcNetwork } from '../../../shared/chain/btc/p2wsh.js';
import { checkBtcAddress } from '../../../shared/domain/addresses.js';

/**
 * Bitcoin deposit addresses (DESIGN section 12): P2WSH over `<tag> OP_DROP <hot key> OP_CHECKSIG`, one tag per
 * (tenant, reference). Checked against BIP173's own P2WSH vectors and the address validator the withdrawals use.
 */
const G = hexToBytes('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
const NETWORKS = Object.keys(BTC_HRP) as BtcNetwork[];

describe('P2WSH', () => {
  it("spells BIP173's P2WSH vectors (the witness script <G> OP_CHECKSIG) on mainnet and testnet", () => {
    const script = hexToBytes(`21${bytesToHex(G)}ac`);
    expect(bytesToHex(p2wshOutputScript(script))).toBe('00201863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262');
    expect(p2wshAddress(script, 'mainnet')).toBe('bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3');
    expect(p2wshAddress(script, 'testnet')).toBe('tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7');
  });

  it('lays the deposit script out as <32-byte tag> OP_DROP <33-byte key> OP_CHECKSIG', () => {
    const tag = depositTag('t-1', 'p-1');
    const script = depositWitnessScript(tag, G);
    expect(script).toHaveLength(69);
    expect(bytesToHex(script)).toBe(`20${bytesToHex(tag)}7521${bytesToHex(G)}ac`);
    expect(() => depositWitnessScript(tag.slice(1), G)).toThrow(/32 bytes/);
    expect(() => depositWitnessScript(tag, secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false))).toThrow(/compressed/);
  });

  it("gives each network's addresses its own prefix, each one a valid P2WSH address there", () => {
    const key = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
    for (const network of NETWORKS) {
      const { address, outputScript, witnessScript } = depositAddress('t-1', 'p-1', key, network);
      expect(address.startsWith(`${BTC_HRP[network]}1q`)).toBe(true);
      expect(address).toHaveLength(BTC_HRP[network].length + 60);
      expect(checkBtcAddress(address)).toMatchObject({ valid: true });
      expect(outputScript).toEqual(p2wshOutputScript(witnessScript));
    }
  });

  it('never gives two (tenant, reference) pairs one tag, and the same pair always the same one', () => {
    const id = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\0'));
    fc.assert(
      fc.property(id, id, id, id, (t1, r1, t2, r2) => {
        fc.pre(t1 !== t2 || r1 !== r2);
        expect(bytesToHex(depositTag(t1, r1))).not.toBe(bytesToHex(depositTag(t2, r2)));
        expect(depositTag(t1, r1)).toEqual(depositTag(t1, r1));
      }),
      { numRuns: 500 },
    );
    // The separator cannot be smuggled in: ("a", "b\0c") and ("a\0b", "c") are refused, not equal.
    expect(() => depositTag('a', 'b\0c')).toThrow(/NUL/);
    expect(() => depositTag('', 'p')).toThrow(/non-empty/);
  });

  it('gives every payment of a tenant its own address under one hot key', () => {
    const key = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
    const addresses = new Set(Array.from({ length: 1_000 }, (_, i) => depositAddress('t-1', `p-${i}`, key, 'local').address));
    expect(addresses.size).toBe(1_000);
  });
});
