import { bytesToHex } from '@noble/hashes/utils.js';
import { checkAddress, expectedFormat } from '../../../shared/domain/addresses.js';
import type { BtcNetwork } from '../../../shared/domain/bitcoin.js';
import { BTC_DUST_LIMITS, checkBtcAddressOn, decodeBtcAddress } from '../../../shared/domain/bitcoin.js';
import { findCurrency } from '../../../shared/domain/currencies.js';
import type { CurrencyDefinition } from '../../../shared/domain/currencies.js';
import { btcNetworkOf, parseConfig } from '../../../shared/config/config.js';
import { servedNetworks } from '../../../shared/runtime/currencies.js';
import { minimumTo, requireAddress, requireMinimum } from '../../../shared/usecases/withdrawals/resolve.js';
import { ValidateAddressBody, validateAddress } from '../../../shared/usecases/withdrawals/validate-address.js';
import { creditEntry, MAIN } from '../../../shared/domain/ledger.js';
import { CreateWithdrawalBody, createWithdrawal } from '../../../shared/usecases/withdrawals/create-withdrawal.js';
import { EstimateWithdrawalBody, estimateWithdrawal } from '../../../shared/usecases/withdrawals/estimate.js';
import { VirtualClock } from '../../support/clock.js';
import { serving } from '../../support/fakes/payments.js';
import { aTenant } from '../../support/fakes/tenants.js';
import { fakeWithdrawals } from '../../support/fakes/withdrawals.js';

/**
 * Bitcoin destination addresses: every standard output type of the deployment's network, checksums (bech32 for
 * witness version 0, bech32m for 1+, base58check) and program lengths, with the published vectors of BIP173 and
 * BIP350; another network's address refused naming the one expected; dust limits refused as `below_minimum`.
 */

const BTC = findCurrency('BTC') as CurrencyDefinition;

/** BIP173 / BIP350 valid segwit addresses of a standard type, with the output script each one pays. */
const SEGWIT_VECTORS: readonly [string, string, BtcNetwork, string][] = [
  ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'p2wpkh', 'mainnet', '751e76e8199196d454941c45d1b3a323f1433bd6'],
  ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'p2wsh', 'testnet', '1863143c14c5166804bd19203356da136c985678cd4d27a1b8c6329604903262'],
  ['tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy', 'p2wsh', 'testnet', '000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433'],
  ['tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c', 'p2tr', 'testnet', '000000c4a5cad46221b2a187905e5266362b99d5e91c6ce24d165dab93e86433'],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', 'p2tr', 'mainnet', '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'],
  ['bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 'p2wpkh', 'local', '751e76e8199196d454941c45d1b3a323f1433bd6'],
];

/** Base58check: the genesis coinbase's P2PKH, a P2SH, and their testnet forms (regtest shares those versions). */
const BASE58_VECTORS: readonly [string, string, readonly BtcNetwork[], string][] = [
  ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'p2pkh', ['mainnet'], '62e907b15cbf27d5425399ebf6f0fb50ebb88f18'],
  ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'p2sh', ['mainnet'], 'b472a266d0bd89c13706a4132ccfb16f7c3b9fcb'],
  ['mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'p2pkh', ['testnet', 'local'], '243f1394f44554f4ce3fd68649c19adc483ce924'],
  ['2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc', 'p2sh', ['testnet', 'local'], '4e9f39ca4688ff102128ea4ccda34105324305b0'],
];

/** Valid BIP350 addresses of no standard output type: a witness version or program length nobody pays today. */
const NON_STANDARD = ['bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y', 'BC1SW50QGDZ25J', 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs'];

/** BIP173 and BIP350 invalid addresses (each one's reason in the BIPs). */
const INVALID: readonly [string, RegExp][] = [
  ['tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty', /not a bitcoin address/i], // invalid human-readable part
  ['tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut', /not a bitcoin address/i],
  ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5', /checksum/], // invalid checksum
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd', /bech32m/], // bech32 instead of bech32m
  ['tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf', /bech32m/],
  ['BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL', /bech32m/],
  ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh', /not bech32m/], // bech32m instead of bech32
  ['tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47', /not bech32m/],
  ['bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4', /checksum/], // invalid character in checksum
  ['BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R', /witness version/], // invalid witness version
  ['bc1pw5dgrnzv', /2 to 40 bytes/], // program of 1 byte
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav', /2 to 40 bytes/], // 41 bytes
  ['BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P', /20 bytes .* or 32 bytes/], // version 0 program of 16 bytes
  ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq', /mixed/], // mixed case
  ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7', /mixed/],
  ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf', /padding/], // more than 4 padding bits
  ['tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j', /padding/], // non-zero padding
  ['bc1gmk9yu', /checksum|witness version/], // empty data section
  ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', /base58check/],
  ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', /version byte/], // TRON's 0x41
  ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', /not a bitcoin address/i],
];

describe('Bitcoin addresses', () => {
  it.each(SEGWIT_VECTORS)('decodes %s as %s on %s with its program', (address, type, network, program) => {
    const decoded = decodeBtcAddress(address);
    expect(decoded).toMatchObject({ valid: true, type, networks: [network] });
    expect(decoded.valid && bytesToHex(decoded.program)).toBe(program);
    expect(checkBtcAddressOn(address, network).valid).toBe(true);
  });

  it.each(BASE58_VECTORS)('decodes %s as %s on %j with its hash', (address, type, networks, hash) => {
    const decoded = decodeBtcAddress(address);
    expect(decoded).toMatchObject({ valid: true, type, networks });
    expect(decoded.valid && bytesToHex(decoded.program)).toBe(hash);
  });

  it.each(NON_STANDARD)('refuses %s: a valid BIP350 address of no standard output type', (address) => {
    expect(decodeBtcAddress(address)).toEqual({ valid: false, error: expect.stringMatching(/not a standard output type/) });
  });

  it.each(INVALID)('refuses %s', (address, reason) => {
    expect(decodeBtcAddress(address)).toEqual({ valid: false, error: expect.stringMatching(reason) });
  });

  it("takes only the deployment network's addresses, naming the network expected", () => {
    const mainnet = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    const testnet = 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7';
    const regtest = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
    const testBase58 = 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn';
    const on = (network: BtcNetwork) => (a: string) => checkAddress('BTC', a, undefined, { btcNetwork: network });
    expect([mainnet, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'].map(on('mainnet'))).toEqual([
      { valid: true, warning: null },
      { valid: true, warning: null },
      { valid: true, warning: null },
    ]);
    expect(on('mainnet')(testnet)).toEqual({
      valid: false,
      error: 'This is a Bitcoin testnet address; this gateway pays Bitcoin mainnet addresses (1..., 3..., bc1q... or bc1p...).',
    });
    expect(on('mainnet')(testBase58)).toEqual({ valid: false, error: expect.stringMatching(/^This is a Bitcoin testnet address; .* Bitcoin mainnet/) });
    expect(on('testnet')(mainnet)).toEqual({ valid: false, error: expect.stringMatching(/^This is a Bitcoin mainnet address; .* Bitcoin testnet/) });
    expect(on('testnet')(regtest)).toEqual({ valid: false, error: expect.stringMatching(/^This is a Bitcoin regtest address; .* Bitcoin testnet/) });
    expect(on('local')(testnet)).toEqual({ valid: false, error: expect.stringMatching(/^This is a Bitcoin testnet address; .* Bitcoin regtest .*bcrt1q/) });
    // Regtest shares testnet's base58 versions: m/n and 2 addresses are both networks'.
    expect([on('testnet')(testBase58).valid, on('local')(testBase58).valid, on('local')(regtest).valid]).toEqual([true, true, true]);
    expect(expectedFormat('BTC', { btcNetwork: 'local' })).toBe(
      'Bitcoin regtest P2PKH, P2SH, P2WPKH, P2WSH or P2TR address (m.../n..., 2..., bcrt1q... or bcrt1p...)',
    );
  });

  it('validate-address answers for the deployment network, by currency, blockchain or type', () => {
    const validate = (body: Record<string, unknown>, btcNetwork: BtcNetwork) => validateAddress(ValidateAddressBody().parse(body), { btcNetwork });
    const taproot = 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0';
    expect(validate({ address: taproot, currency: 'BTC' }, 'mainnet')).toEqual({
      is_valid: true,
      address: taproot,
      type: 'BTC',
      blockchain: 'BTC',
      token: 'BTC',
      currency: 'BTC',
      error_message: null,
      warning: null,
    });
    expect(validate({ address: taproot, blockchain: 'bitcoin' }, 'testnet')).toMatchObject({
      is_valid: false,
      type: null,
      error_message: expect.stringMatching(/Bitcoin mainnet address; this gateway pays Bitcoin testnet/),
    });
    expect(validate({ address: '2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc', type: 'BTC' }, 'local')).toMatchObject({ is_valid: true, type: 'BTC' });
  });

  it('a withdrawal destination of another network is 400 invalid_address with the expected format', () => {
    expect(() => requireAddress(BTC, 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', { btcNetwork: 'mainnet' })).toThrow(
      expect.objectContaining({
        code: 'invalid_address',
        details: {
          address: 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
          expected_format: 'Bitcoin mainnet P2PKH, P2SH, P2WPKH, P2WSH or P2TR address (1..., 3..., bc1q... or bc1p...)',
        },
      }),
    );
    expect(() => requireAddress(BTC, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', { btcNetwork: 'mainnet' })).not.toThrow();
  });

  it("the network is BTC_NETWORK, else the stage's: prod mainnet, local the local node, any other testnet", () => {
    expect(['prod', 'local', 'dev', 'staging'].map(btcNetworkOf)).toEqual(['mainnet', 'local', 'testnet', 'testnet']);
    const served = (env: Record<string, string>) => servedNetworks(parseConfig({ TABLE_NAME: 't', ...env })).btcNetwork;
    expect([served({}), served({ STAGE: 'local' }), served({ STAGE: 'dev' }), served({ STAGE: 'dev', BTC_NETWORK: 'mainnet' })]).toEqual([
      'mainnet',
      'local',
      'testnet',
      'mainnet',
    ]);
    expect(() => parseConfig({ TABLE_NAME: 't', BTC_NETWORK: 'regtest' })).toThrow(/BTC_NETWORK/);
  });
});

describe('Bitcoin minimums', () => {
  /** The catalogue's BTC with a minimum under every dust limit, so the dust limit is what refuses. */
  const LOW: CurrencyDefinition = { ...BTC, minWithdrawal: '0.000001' };
  const TO = {
    p2pkh: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
    p2sh: '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    p2wpkh: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    p2wsh: 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
    p2tr: 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
  } as const;

  it('the dust limit of each output type: P2PKH 546, P2SH 540, P2WPKH 294, P2WSH and P2TR 330 satoshis', () => {
    expect(BTC_DUST_LIMITS).toEqual({ p2pkh: 546n, p2sh: 540n, p2wpkh: 294n, p2wsh: 330n, p2tr: 330n });
    expect(Object.values(TO).map((a) => minimumTo(LOW, a))).toEqual([
      { minimum: '0.00000546', dustOf: 'P2PKH' },
      { minimum: '0.0000054', dustOf: 'P2SH' },
      { minimum: '0.00000294', dustOf: 'P2WPKH' },
      { minimum: '0.0000033', dustOf: 'P2WSH' },
      { minimum: '0.0000033', dustOf: 'P2TR' },
    ]);
  });

  it('an amount under the dust limit of its output is 422 below_minimum; at the limit it passes', () => {
    for (const [type, address] of Object.entries(TO)) {
      const limit = BTC_DUST_LIMITS[type as keyof typeof TO];
      const under = (Number(limit) - 1).toString().padStart(8, '0');
      expect(() => requireMinimum(LOW, address, `0.${under}`)).toThrow(
        expect.objectContaining({
          code: 'below_minimum',
          message: expect.stringMatching(new RegExp(`dust limit of a ${type.toUpperCase()} output`)),
          details: { minimum: minimumTo(LOW, address).minimum, requested: `0.${under}`, currency: 'BTC' },
        }),
      );
      expect(() => requireMinimum(LOW, address, `0.${Number(limit).toString().padStart(8, '0')}`)).not.toThrow();
    }
  });

  it("below the catalogue's BTC minimum (over any dust limit) is below_minimum naming that minimum", () => {
    expect(minimumTo(BTC, TO.p2pkh)).toEqual({ minimum: BTC.minWithdrawal, dustOf: null });
    expect(() => requireMinimum(BTC, TO.p2tr, '0.0001')).toThrow(
      expect.objectContaining({
        code: 'below_minimum',
        message: `The minimum withdrawal is ${BTC.minWithdrawal} BTC.`,
        details: { minimum: BTC.minWithdrawal, requested: '0.0001', currency: 'BTC' },
      }),
    );
    expect(() => requireMinimum(BTC, TO.p2tr, BTC.minWithdrawal)).not.toThrow();
    // Other currencies keep the catalogue's minimum whatever the address.
    const usdt = findCurrency('USDTERC20') as CurrencyDefinition;
    expect(minimumTo(usdt, TO.p2pkh)).toEqual({ minimum: usdt.minWithdrawal, dustOf: null });
  });
});

describe('a BTC withdrawal on a regtest deployment', () => {
  const T0 = new Date('2026-01-01T00:00:00.000Z');
  const tenant = aTenant();
  const REGTEST = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
  const TESTNET = 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7';

  async function deployment() {
    const fake = fakeWithdrawals({ clock: new VirtualClock(T0), served: { ...serving(['BTC']), btcNetwork: 'local' } });
    await fake.ledger.post({
      tenantId: tenant.id,
      entryId: 'funding-BTC',
      entry: creditEntry({ account: MAIN, type: 'adjustment', currency: 'BTC', amount: '1', reason: 'test funding' }),
      now: T0,
    });
    const create = (body: Record<string, unknown>) => createWithdrawal({ body: CreateWithdrawalBody().parse(body), tenant, now: T0 }, fake);
    return { fake, create };
  }

  it('is created to a regtest address; a testnet one is 400 invalid_address naming the regtest forms, nothing held', async () => {
    const { fake, create } = await deployment();
    await expect(create({ amount: '0.001', currency: 'BTC', address: TESTNET })).rejects.toMatchObject({
      code: 'invalid_address',
      message: expect.stringMatching(/^This is a Bitcoin testnet address; this gateway pays Bitcoin regtest addresses/),
      details: { address: TESTNET, expected_format: expect.stringContaining('bcrt1q') },
    });
    expect((await fake.ledger.balance(tenant.id, MAIN, 'BTC')).amount).toBe('1');
    const made = await create({ amount: '0.001', currency: 'BTC', address: REGTEST });
    expect([made.status, made.currency, made.address, made.amount]).toEqual(['pending', 'BTC', REGTEST, '0.001']);
  });

  it("below the catalogue's minimum is 422 below_minimum; estimate refuses it too; validate-address takes the regtest address", async () => {
    const { fake, create } = await deployment();
    await expect(create({ amount: '0.0001', currency: 'BTC', address: REGTEST })).rejects.toMatchObject({
      code: 'below_minimum',
      details: { minimum: BTC.minWithdrawal, requested: '0.0001', currency: 'BTC' },
    });
    await expect(
      estimateWithdrawal(EstimateWithdrawalBody().parse({ amount: '0.0001', currency: 'BTC', address: REGTEST }), tenant, fake),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      details: { minimum: BTC.minWithdrawal, currency: 'BTC' },
    });
    await expect(estimateWithdrawal(EstimateWithdrawalBody().parse({ amount: '0.01', currency: 'BTC', address: TESTNET }), tenant, fake)).rejects.toMatchObject(
      {
        code: 'invalid_request',
        message: expect.stringMatching(/^The address is not a valid BTC address: This is a Bitcoin testnet address; this gateway pays Bitcoin regtest/),
        details: { address: TESTNET, blockchain: 'BTC' },
      },
    );
    expect(validateAddress(ValidateAddressBody().parse({ address: REGTEST, currency: 'BTC' }), fake.served)).toMatchObject({ is_valid: true, type: 'BTC' });
    expect(validateAddress(ValidateAddressBody().parse({ address: TESTNET, currency: 'BTC' }), fake.served)).toMatchObject({ is_valid: false });
    expect(await fake.withdrawals.list(tenant.id, { by: 'created', ascending: true })).toEqual([]);
  });
});
