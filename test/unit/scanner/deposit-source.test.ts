import { CURRENCIES } from '../../../shared/domain/currencies.js';
import { toBaseUnits } from '../../../shared/domain/money.js';
import type { BlockRef, DepositSource, NativeTransfer, TokenTransfer } from '../../../shared/usecases/deposits/ports.js';
import type { CreatePaymentBody } from '../../../shared/usecases/payments/create-payment.js';
import { createPayment } from '../../../shared/usecases/payments/create-payment.js';
import type { SweepPort } from '../../../shared/usecases/payments/ports.js';
import { initCursor, scanOnce } from '../../../shared/usecases/scanner/scan.js';
import type { FakePayments } from '../../support/fakes/payments.js';
import { fakePayments, fakeTokenContract } from '../../support/fakes/payments.js';
import { VirtualClock } from '../../support/clock.js';
import { aTenant } from '../../support/fakes/tenants.js';

/**
 * The scanner's pass knows a chain only through its DepositSource (shared/usecases/deposits/ports.ts): a family
 * whose addresses come in another form than EVM's lowercase hex is matched in that form (`addressForm`) against the
 * deposit-address index, under the source's `family`; a family without a native-coin reader gets no native check,
 * and one whose reader has no balance gets its coins from the transfers alone.
 */

const T0 = new Date('2026-01-01T00:00:00.000Z');
const hashOf = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;
/** This family's form of an address: upper case, as no EVM node gives it. */
const shout = (address: string): string => address.toUpperCase();

/** A source of some family that reports every address in upper case. */
class ShoutingSource implements DepositSource {
  readonly family = 'shouting';
  readonly transfers: TokenTransfer[] = [];
  readonly coins: NativeTransfer[] = [];
  readonly families: string[] = [];
  calls = 0;
  native?: DepositSource['native'];

  constructor(
    public height: number,
    withNative: boolean,
  ) {
    if (withNative)
      // Every coin received shows among its transfers: no balance check.
      this.native = { transfers: async (from, to) => this.coins.filter((c) => c.blockNumber >= from && c.blockNumber <= to) };
  }

  addressForm = shout;

  async head(): Promise<number> {
    return this.height;
  }

  async block(n: number): Promise<BlockRef | null> {
    return n <= this.height ? { number: n, hash: hashOf(n) } : null;
  }

  async tokenTransfers(from: number, to: number, tokens: readonly string[]): Promise<TokenTransfer[]> {
    return this.transfers.filter((t) => t.blockNumber >= from && t.blockNumber <= to && tokens.includes(t.token));
  }

  close(): void {}
}

const noSweep: SweepPort = {
  requestSweep: async () => {
    throw new Error('nothing is confirmed in these passes');
  },
};

const create = (fake: FakePayments, body: CreatePaymentBody) => createPayment({ body, tenant: aTenant(), now: fake.clock.now() }, fake);

describe('the scanner pass through a DepositSource', () => {
  it("matches a family's transfers in its own address form, under its family", async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake, { amount: '25', currency: 'USDTERC20' });
    const source = new ShoutingSource(100, false);
    const matched: [string, string[]][] = [];
    const index = fake.payments.matchAddresses.bind(fake.payments);
    fake.payments.matchAddresses = async (family, addresses) => {
      matched.push([family, [...addresses]]);
      return index(family, addresses);
    };
    const deps = { ...fake, source, sweep: noSweep };
    await initCursor('ETH', 100, deps);
    source.transfers.push({
      token: shout(fakeTokenContract(CURRENCIES.USDTERC20) as string),
      to: shout(p.address),
      value: 25_000_000n,
      txHash: hashOf(7),
      logIndex: 3,
      blockNumber: 101,
      blockHash: hashOf(101),
    });
    source.height = 101;

    expect(await scanOnce('ETH', deps)).toMatchObject({ from: 101, to: 101, logs: 1, recorded: 1 });
    expect(matched).toEqual([['shouting', [shout(p.address)]]]);
    const stored = await fake.payments.get('t1', p.id);
    expect([stored?.status, stored?.deposits.map((d) => [d.id, d.amount, d.confirmations])]).toEqual(['confirming', [[`ETH:${hashOf(7)}:3`, '25', 1]]]);
  });

  it("finds the native coin's transfers in the source's form, and checks no native coin where the source reads none", async () => {
    const fake = fakePayments({ clock: new VirtualClock(T0) });
    const p = await create(fake, { amount: '10', currency: 'ETH' });
    const coin = { to: shout(p.address), value: toBaseUnits(p.amountCrypto, 18), txHash: hashOf(9), blockNumber: 101, blockHash: hashOf(101) };

    const without = new ShoutingSource(100, false);
    const blind = { ...fake, source: without, sweep: noSweep };
    await initCursor('ETH', 100, blind);
    without.height = 101;
    expect(await scanOnce('ETH', blind)).toMatchObject({ to: 101, recorded: 0 });

    const source = new ShoutingSource(101, true);
    source.coins.push({ ...coin, blockNumber: 102, blockHash: hashOf(102) });
    source.height = 102;
    expect(await scanOnce('ETH', { ...fake, source, sweep: noSweep })).toMatchObject({ from: 102, to: 102, recorded: 1 });
    const stored = await fake.payments.get('t1', p.id);
    expect(stored?.deposits.map((d) => [d.id, d.amount])).toEqual([[`ETH:${hashOf(9)}:native`, p.amountCrypto]]);
  });
});
