import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { addressTypeOf, checkAddress, checkEvmAddress, toChecksumAddress } from '../../../shared/domain/addresses.js';

const b58c = createBase58check(sha256);
const versioned = (version: number): string => b58c.encode(Uint8Array.from([version, ...new Array<number>(20).fill(7)]));

describe('EVM addresses (EIP-55)', () => {
  // The published test vectors of EIP-55.
  const vectors = [
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];
  it.each(vectors)('accepts %s', (address) => {
    expect(checkEvmAddress(address)).toEqual({ valid: true, warning: null });
  });
  it('computes the checksum form of the mixed-case vectors', () => {
    for (const v of vectors.slice(4)) expect(toChecksumAddress(v.toLowerCase())).toBe(v);
  });
  it('refuses a broken checksum, a wrong length and non-hex', () => {
    expect(checkEvmAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD').valid).toBe(false);
    expect(checkEvmAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae').valid).toBe(false);
    expect(checkEvmAddress('0xZaaeb6053f3e94c9b9a09f33669435e7ef1beaed').valid).toBe(false);
    expect(checkEvmAddress('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00').valid).toBe(false);
  });
  it('accepts the zero address with a warning', () => {
    const r = checkEvmAddress('0x0000000000000000000000000000000000000000');
    expect(r.valid).toBe(true);
    expect(r.valid && r.warning).toMatch(/zero address/);
  });
});

describe('other families', () => {
  it('TRON: base58check with prefix 0x41', () => {
    expect(checkAddress('TRX', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t').valid).toBe(true);
    expect(checkAddress('TRX', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u').valid).toBe(false);
    // A valid base58check payload with another version byte is not TRON.
    expect(checkAddress('TRX', versioned(0x00)).valid).toBe(false);
  });
  it('BTC: p2pkh, p2sh, bech32, taproot; bad checksums refused', () => {
    for (const a of [
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
      '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4',
    ]) {
      expect([a, checkAddress('BTC', a).valid]).toEqual([a, true]);
    }
    for (const a of [
      '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj1',
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdQ',
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    ]) {
      expect([a, checkAddress('BTC', a).valid]).toEqual([a, false]);
    }
  });
  it('SOL: base58 of 32 bytes', () => {
    expect(checkAddress('SOL', '11111111111111111111111111111111').valid).toBe(true);
    expect(checkAddress('SOL', 'So11111111111111111111111111111111111111112').valid).toBe(true);
    expect(checkAddress('SOL', '1111111111111111111111111111111').valid).toBe(false);
    expect(checkAddress('SOL', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed').valid).toBe(false);
  });
  it('LTC and DOGE by version byte', () => {
    expect(checkAddress('LTC', versioned(0x30)).valid).toBe(true);
    expect(checkAddress('LTC', versioned(0x1e)).valid).toBe(false);
    expect(checkAddress('DOGE', versioned(0x1e)).valid).toBe(true);
    expect(checkAddress('DOGE', versioned(0x30)).valid).toBe(false);
  });
  it('XRP and XLM need a memo', () => {
    expect(checkAddress('XRP', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', '12345').valid).toBe(true);
    expect(checkAddress('XRP', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh')).toEqual({ valid: false, error: expect.stringMatching(/memo/) });
    expect(checkAddress('XRP', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', 'abc').valid).toBe(false);
    expect(checkAddress('XRP', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTi', '1').valid).toBe(false);
    expect(checkAddress('XLM', 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7', 'memo').valid).toBe(true);
    expect(checkAddress('XLM', 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7').valid).toBe(false);
    expect(checkAddress('XLM', 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN6', 'memo').valid).toBe(false);
  });
  it('ADA: Shelley bech32', () => {
    expect(checkAddress('ADA', 'addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x').valid).toBe(true);
    expect(checkAddress('ADA', 'addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3y').valid).toBe(false);
  });
  it('derives the type from a blockchain name', () => {
    expect(['eth', 'BSC', 'polygon', 'AVAX', 'tron', 'trx', 'sol', 'xrp'].map(addressTypeOf)).toEqual(['EVM', 'EVM', 'EVM', 'EVM', 'TRX', 'TRX', 'SOL', 'XRP']);
    expect(addressTypeOf('DOT')).toBeUndefined();
  });
});
