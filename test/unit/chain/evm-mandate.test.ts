import fc from 'fast-check';
import { Interface, SigningKey, TypedDataEncoder, computeAddress, getAddress, id } from 'ethers';
import { ERC20_ABI } from '../../../shared/chain/evm/abi.js';
import { SUBSCRIPTION_COLLECTOR_ABI } from '../../../shared/chain/evm/collector.js';
import { addressOfPoint } from '../../../shared/chain/signer/kms-address.js';
import { approveData, authorizeData, MANDATE_TYPES, mandateId, mandateSalt, type MandateTerms } from '../../../shared/chain/evm/mandate.js';

/**
 * shared/chain/evm/mandate.ts encodes a mandate without a chain client (the subscriptions API ships no ethers): its
 * id, `authorize` and `approve` call data and salt equal ethers' own encodings for any terms.
 */
const collector = new Interface(SUBSCRIPTION_COLLECTOR_ABI);
const erc20 = new Interface(ERC20_ABI);
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(`0x${Buffer.from(b).toString('hex')}`));
const terms: fc.Arbitrary<MandateTerms> = fc
  .record({
    subscriber: address,
    token: address,
    payee: address,
    perChargeCap: fc.bigInt({ min: 1n, max: 2n ** 127n }),
    extra: fc.bigInt({ min: 0n, max: 2n ** 127n - 1n }),
    periodSeconds: fc.integer({ min: 1, max: 2 ** 32 - 1 }),
    start: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    salt: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  })
  .map(({ extra, ...t }) => ({ ...t, perPeriodCap: t.perChargeCap + extra }));
const tuple = (m: MandateTerms) => [m.subscriber, m.token, m.payee, m.perChargeCap, m.perPeriodCap, m.periodSeconds, m.start, m.salt];

describe('mandate encodings without ethers', () => {
  it("equal ethers' EIP-712 struct hash and ABI call data for any terms", () => {
    fc.assert(
      fc.property(terms, (t) => {
        expect(mandateId(t)).toBe(TypedDataEncoder.hashStruct('Mandate', MANDATE_TYPES, { ...t }));
        expect(authorizeData(t)).toBe(collector.encodeFunctionData('authorize', [tuple(t)]).toLowerCase());
      }),
    );
    fc.assert(
      fc.property(address, fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), (spender, amount) => {
        expect(approveData(spender, amount)).toBe(erc20.encodeFunctionData('approve', [spender, amount]).toLowerCase());
      }),
    );
  });

  it('salts a reference with the first 8 bytes of its keccak-256', () => {
    expect(mandateSalt('0b1c7a9e-2f0d-4a4e-9d5c-1c2b3a4d5e6f')).toBe(BigInt(id('0b1c7a9e-2f0d-4a4e-9d5c-1c2b3a4d5e6f').slice(0, 18)));
  });

  it("derives a key's address from its uncompressed point as ethers does (the hot wallet's, read from KMS by the API)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((b) => b.some((x) => x !== 0)),
        (secret) => {
          const point = SigningKey.computePublicKey(secret, false);
          expect(addressOfPoint(Buffer.from(point.slice(2), 'hex'))).toBe(computeAddress(point));
        },
      ),
      { numRuns: 20 },
    );
  });
});
