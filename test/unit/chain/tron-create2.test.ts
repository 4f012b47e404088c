import { keccak256 } from 'ethers';
import { TronWeb } from 'tronweb';
import { cloneInitCodeHash, create2Address } from '../../../shared/chain/evm/create2.js';
import { tronCreate2Address, tronDepositAddress } from '../../../shared/chain/tron/create2.js';
import { toTronBase58, tronAddressFromBytes, tronAddressToBytes, tronAddressToEvmHex } from '../../../shared/domain/chain-addresses.js';

const utf8Keccak = (s: string): string => keccak256(new TextEncoder().encode(s));

describe('tronCreate2Address', () => {
  /*
   * Published vectors: the address-generation tests of a public TRON wallet-factory project (truffle), whose factories
   * are deployed on TRON mainnet (TAtb9sk…) and Nile (TCX2uh…). Salt = keccak256(utf8(id)); init code hash as given.
   */
  const mainnetFactory = 'TAtb9skGf5JU62NKYPY1G8THDWV9T7mx53';
  const nileFactory = 'TCX2uhV4HjcWRB7hrTQL57fFRdxgiyypEc';
  const ids = ['1', '2', '68168199-96a9-4515-99b8-7ef44f13d209', 'c98b6212-80aa-470c-9741-e427e0cdda80'];
  const vectors: [factory: string, id: string, initCodeHash: string, expected: string][] = [
    [mainnetFactory, ids[0]!, '0xe0dba80b6b1cd71e9dc972924f072016008963014cd10c34d5ebd96d9b93ddcc', 'TLsYCgQ82LHeJLbPtondUN4wGm9ZpjDHuo'],
    [mainnetFactory, ids[1]!, '0xe0dba80b6b1cd71e9dc972924f072016008963014cd10c34d5ebd96d9b93ddcc', 'THNTVbyvX1BHHphXw5N9kUhg5hMYC1fk3r'],
    [nileFactory, ids[2]!, '0xe0dba80b6b1cd71e9dc972924f072016008963014cd10c34d5ebd96d9b93ddcc', 'TWnvbujUHt2qXZkk5e1m2MYAepQuArfXAU'],
    [nileFactory, ids[3]!, '0xe0dba80b6b1cd71e9dc972924f072016008963014cd10c34d5ebd96d9b93ddcc', 'TQ4wSo6aREXV8sfoMtpPnUhUBtcG9EkU6n'],
    [mainnetFactory, ids[0]!, '0xa800a84a1e76d9ebed54ef4780c3213798df585d5fa31cb9beb636eccb0a97f8', 'TTugLVdaFLYUZ5CdzUpu2LppMF55RAurWy'],
    [mainnetFactory, ids[1]!, '0xa800a84a1e76d9ebed54ef4780c3213798df585d5fa31cb9beb636eccb0a97f8', 'TKPqvci1TwVkkJatoQcboso2Jw6tNdUryn'],
    [nileFactory, ids[2]!, '0xa800a84a1e76d9ebed54ef4780c3213798df585d5fa31cb9beb636eccb0a97f8', 'TQuCvgU5njYMhnL47ajAoqhMZirqtQiph9'],
    [nileFactory, ids[3]!, '0xa800a84a1e76d9ebed54ef4780c3213798df585d5fa31cb9beb636eccb0a97f8', 'TEXYFRCmwbbyyuJG1djHanic1nNSFhspWP'],
    [mainnetFactory, ids[0]!, '0x859eaafca1fb06f82c48a8aa81e349db09a810cbca54e5c555df47f13f32477c', 'TD4sngiZ8wPtZ8kvUkZG2ycfJQ12UJEihi'],
    [mainnetFactory, ids[1]!, '0x859eaafca1fb06f82c48a8aa81e349db09a810cbca54e5c555df47f13f32477c', 'TCu3hFcKAQL747whgYM9jVXQvPBwEuxheC'],
  ];

  it.each(vectors)('factory %s, id %s, init code hash %s -> %s', (factory, id, hash, expected) => {
    expect(tronCreate2Address(factory, utf8Keccak(id), hash)).toBe(expected);
  });

  it('accepts the deployer in base58, 41-hex, 0x41-hex and 0x-20-byte form alike', () => {
    const salt = utf8Keccak('1');
    const hash = vectors[0]![2];
    const hex41 = TronWeb.address.toHex(mainnetFactory);
    const forms = [mainnetFactory, hex41, `0x${hex41}`, `0x${hex41.slice(2)}`];
    for (const form of forms) expect(tronCreate2Address(form, salt, hash)).toBe('TLsYCgQ82LHeJLbPtondUN4wGm9ZpjDHuo');
  });

  it('differs from the EVM address for the same inputs (0x41 instead of 0xff)', () => {
    const salt = utf8Keccak('x');
    const hash = utf8Keccak('code');
    const tron = tronCreate2Address(mainnetFactory, salt, hash);
    const evm = create2Address(tronAddressToEvmHex(mainnetFactory), salt, hash);
    expect(tronAddressToEvmHex(tron).toLowerCase()).not.toBe(evm.toLowerCase());
  });
});

describe('TRON address codec (checked against tronweb)', () => {
  const samples = ['TAtb9skGf5JU62NKYPY1G8THDWV9T7mx53', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'TCX2uhV4HjcWRB7hrTQL57fFRdxgiyypEc'];

  it.each(samples)('round-trips %s', (address) => {
    const bytes = tronAddressToBytes(address);
    expect(Buffer.from(bytes).toString('hex')).toBe(TronWeb.address.toHex(address).toLowerCase());
    expect(tronAddressFromBytes(bytes)).toBe(address);
    expect(TronWeb.address.fromHex(Buffer.from(bytes).toString('hex'))).toBe(address);
    expect(toTronBase58(tronAddressToEvmHex(address))).toBe(address);
  });

  it('rejects bad checksums, wrong prefixes and wrong lengths', () => {
    expect(() => tronAddressToBytes('TAtb9skGf5JU62NKYPY1G8THDWV9T7mx54')).toThrow(TypeError);
    expect(() => tronAddressToBytes(`42${'00'.repeat(20)}`)).toThrow(TypeError);
    expect(() => tronAddressFromBytes(new Uint8Array(20))).toThrow(TypeError);
    expect(() => tronCreate2Address('TAtb9skGf5JU62NKYPY1G8THDWV9T7mx53', '0x01', utf8Keccak('c'))).toThrow(/salt/);
  });
});

describe('tronDepositAddress', () => {
  it('is TRON-CREATE2(factory, salt, EIP-1167 clone init code of the implementation body)', () => {
    const factory = 'TAtb9skGf5JU62NKYPY1G8THDWV9T7mx53';
    const implementation = 'TCX2uhV4HjcWRB7hrTQL57fFRdxgiyypEc';
    const salt = utf8Keccak('payment');
    const expected = tronCreate2Address(factory, salt, cloneInitCodeHash(tronAddressToEvmHex(implementation)));
    expect(tronDepositAddress(factory, implementation, salt)).toBe(expected);
    expect(TronWeb.isAddress(expected)).toBe(true);
    expect(tronDepositAddress(factory, implementation, utf8Keccak('other'))).not.toBe(expected);
  });
});
