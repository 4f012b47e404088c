import { AbiCoder, getCreate2Address, getCreateAddress, keccak256 } from 'ethers';
import {
  SALT_DOMAIN,
  addressBytes,
  checksumAddress,
  cloneInitCode,
  cloneInitCodeHash,
  create2Address,
  createAddress,
  depositAddress,
  forwarderImplementationAddress,
  initCodeHash,
  saltFor,
} from '../../../shared/chain/evm/create2.js';

describe('create2Address', () => {
  // The examples published in EIP-1014 (https://eips.ethereum.org/EIPS/eip-1014#examples).
  const examples: [deployer: string, salt: string, initCode: string, expected: string][] = [
    ['0x0000000000000000000000000000000000000000', `0x${'00'.repeat(32)}`, '0x00', '0x4D1A2e2bB4F88F0250f26Ffff098B0b30B26BF38'],
    ['0xdeadbeef00000000000000000000000000000000', `0x${'00'.repeat(32)}`, '0x00', '0xB928f69Bb1D91Cd65274e3c79d8986362984fDA3'],
    [
      '0xdeadbeef00000000000000000000000000000000',
      '0x000000000000000000000000feed000000000000000000000000000000000000',
      '0x00',
      '0xD04116cDd17beBE565EB2422F2497E06cC1C9833',
    ],
    ['0x0000000000000000000000000000000000000000', `0x${'00'.repeat(32)}`, '0xdeadbeef', '0x70f2b2914A2a4b783FaEFb75f459A580616Fcb5e'],
    [
      '0x00000000000000000000000000000000deadbeef',
      '0x00000000000000000000000000000000000000000000000000000000cafebabe',
      '0xdeadbeef',
      '0x60f3f640a8508fC6a86d45DF051962668E1e8AC7',
    ],
    [
      '0x00000000000000000000000000000000deadbeef',
      '0x00000000000000000000000000000000000000000000000000000000cafebabe',
      `0x${'deadbeef'.repeat(11)}`,
      '0x1d8bfDC5D46DC4f61D6b6115972536eBE6A8854C',
    ],
    ['0x0000000000000000000000000000000000000000', `0x${'00'.repeat(32)}`, '0x', '0xE33C0C7F7df4809055C3ebA6c09CFe4BaF1BD9e0'],
  ];

  it.each(examples)('EIP-1014 example: deployer %s salt %s code %s', (deployer, salt, code, expected) => {
    expect(create2Address(deployer, salt, initCodeHash(code))).toBe(expected);
  });

  it('rejects malformed inputs', () => {
    expect(() => create2Address('0x1234', `0x${'00'.repeat(32)}`, `0x${'00'.repeat(32)}`)).toThrow(TypeError);
    expect(() => create2Address(`0x${'00'.repeat(20)}`, '0x00', `0x${'00'.repeat(32)}`)).toThrow(/salt/);
    expect(() => create2Address(`0x${'00'.repeat(20)}`, `0x${'00'.repeat(32)}`, new Uint8Array(31))).toThrow(/init code hash/);
  });
});

describe('checksumAddress / addressBytes', () => {
  // EIP-55's published examples.
  it.each([
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ])('checksums %s', (address) => {
    expect(checksumAddress(address.toLowerCase())).toBe(address);
    expect(addressBytes(address)).toHaveLength(20);
  });

  it('rejects a mixed-case address with a wrong checksum, accepts all-lower and all-upper', () => {
    expect(() => addressBytes('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toThrow(/checksum/);
    expect(addressBytes('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toHaveLength(20);
    expect(addressBytes('0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED')).toHaveLength(20);
  });
});

describe('createAddress', () => {
  const deployer = '0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0';
  it.each([0, 1, 2, 127, 128, 255, 256, 65535, 2 ** 32])('matches ethers for nonce %d', (nonce) => {
    expect(createAddress(deployer, nonce)).toBe(getCreateAddress({ from: deployer, nonce }));
  });

  it('puts the forwarder implementation at CREATE(factory, 1)', () => {
    expect(forwarderImplementationAddress(deployer)).toBe(getCreateAddress({ from: deployer, nonce: 1 }));
  });
});

describe('cloneInitCode', () => {
  const impl = '0xbebebebebebebebebebebebebebebebebebebebe';

  it('is the 55-byte EIP-1167 creation code around the implementation', () => {
    const code = cloneInitCode(impl);
    expect(code).toBe(`0x3d602d80600a3d3981f3363d3d373d3d3d363d73${impl.slice(2)}5af43d82803e903d91602b57fd5bf3`);
    expect((code.length - 2) / 2).toBe(55);
    expect(cloneInitCodeHash(impl)).toBe(keccak256(code));
  });
});

describe('saltFor', () => {
  const reference = (tenant: string, payment: string): string =>
    keccak256(AbiCoder.defaultAbiCoder().encode(['string', 'string', 'string'], [SALT_DOMAIN, tenant, payment]));

  it.each([
    ['t', 'p'],
    ['tenant-1', 'payment-1'],
    ['6f1c0b8e-3d0e-4a3c-9d8f-0a1b2c3d4e5f', '0193a1e2-7b4c-7d8e-9f00-112233445566'],
    ['a'.repeat(32), 'b'.repeat(33)],
    ['ténant ✓', '支付-1'],
  ])('is keccak256(abi.encode("cpg.deposit.v1", %j, %j))', (tenant, payment) => {
    expect(saltFor(tenant, payment)).toBe(reference(tenant, payment));
  });

  it('is pinned: changing the encoding would move every deposit address', () => {
    expect(SALT_DOMAIN).toBe('cpg.deposit.v1');
    expect(saltFor('tenant-1', 'payment-1')).toBe(reference('tenant-1', 'payment-1'));
    expect(saltFor('tenant-1', 'payment-1')).toBe('0x2a7158e863be17b2be12655827bdd885880b3d86ba025ce9ac16d99da9316d10');
  });

  it('separates the two ids (no concatenation ambiguity) and is case-sensitive', () => {
    expect(saltFor('ab', 'c')).not.toBe(saltFor('a', 'bc'));
    expect(saltFor('t', 'P-1')).not.toBe(saltFor('t', 'p-1'));
    expect(saltFor('t1', 'p')).not.toBe(saltFor('t2', 'p'));
  });

  it('rejects empty ids', () => {
    expect(() => saltFor('', 'p')).toThrow(TypeError);
    expect(() => saltFor('t', '')).toThrow(TypeError);
  });
});

describe('depositAddress', () => {
  it('is CREATE2(factory, salt, keccak256(clone init code))', () => {
    const factory = '0x1111111111111111111111111111111111111111';
    const impl = forwarderImplementationAddress(factory);
    const salt = saltFor('tenant-1', 'payment-1');
    expect(depositAddress(factory, impl, salt)).toBe(getCreate2Address(factory, salt, keccak256(cloneInitCode(impl))));
    expect(depositAddress(factory, impl, saltFor('tenant-1', 'payment-2'))).not.toBe(depositAddress(factory, impl, salt));
  });
});
