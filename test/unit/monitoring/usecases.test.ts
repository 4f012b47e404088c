import { jest } from '@jest/globals';
import type { StatusSince } from '../../../shared/domain/monitoring.js';
import type { MetricDatum } from '../../../shared/observability/metrics.js';
import { reportHotWallet } from '../../../shared/usecases/monitoring/hot-wallet.js';
import { reportStuckWork, StuckWorkReadError } from '../../../shared/usecases/monitoring/stuck-work.js';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const ago = (minutes: number): string => new Date(NOW.getTime() - minutes * 60_000).toISOString();
const item = (id: string, network: string, status: string, minutes: number): StatusSince => ({ id, network, status, updatedAt: ago(minutes) });

interface Emitted {
  readonly namespace: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly metrics: readonly MetricDatum[];
}

function recorder(): { emitted: Emitted[]; emit: (namespace: string, dimensions: Readonly<Record<string, string>>, metrics: readonly MetricDatum[]) => void } {
  const emitted: Emitted[] = [];
  return { emitted, emit: (namespace, dimensions, metrics) => emitted.push({ namespace, dimensions, metrics }) };
}

/** Value printed for a metric on a network (undefined: not printed). */
const valueOf = (emitted: readonly Emitted[], network: string, name: string): number | undefined =>
  emitted
    .filter((e) => e.dimensions.network === network)
    .flatMap((e) => e.metrics)
    .find((m) => m.name === name)?.value;

let quiet: { mockRestore(): void }[] = [];
beforeEach(() => {
  quiet = [jest.spyOn(console, 'warn').mockImplementation(() => undefined), jest.spyOn(console, 'error').mockImplementation(() => undefined)];
});
afterEach(() => quiet.forEach((q) => q.mockRestore()));

describe('reportStuckWork', () => {
  const payments: Record<string, StatusSince[]> = {
    ETH: [item('p1', 'ETH', 'sending', 16), item('p2', 'ETH', 'sending', 3), item('p3', 'ETH', 'confirmed', 60)],
    POLYGON: [],
  };
  const withdrawals = [item('w1', 'POLYGON', 'processing', 31), item('w2', 'ETH', 'processing', 29)];
  const deps = (emit: ReturnType<typeof recorder>['emit'], overrides: Partial<Parameters<typeof reportStuckWork>[0]> = {}) => ({
    networks: ['ETH', 'POLYGON'],
    openPayments: (network: string) => Promise.resolve(payments[network] ?? []),
    processingWithdrawals: () => Promise.resolve(withdrawals),
    clock: { now: () => NOW },
    sweepStuckMinutes: 15,
    withdrawalStuckMinutes: 30,
    emit,
    ...overrides,
  });

  it('prints both counts for every network, 0 included, in the operations namespace, aggregated', async () => {
    const { emitted, emit } = recorder();
    const report = await reportStuckWork(deps(emit));
    expect(report.sweeps?.byNetwork).toEqual({ ETH: 1, POLYGON: 0 });
    expect(report.withdrawals?.byNetwork).toEqual({ ETH: 0, POLYGON: 1 });
    expect(emitted.map((e) => e.dimensions.network).sort()).toEqual(['ETH', 'POLYGON']);
    for (const e of emitted) {
      expect(e.namespace).toBe('Gateway/Operations');
      expect(e.metrics.every((m) => m.aggregate === true)).toBe(true);
    }
    expect(valueOf(emitted, 'ETH', 'PaymentSweepsStuck')).toBe(1);
    expect(valueOf(emitted, 'POLYGON', 'PaymentSweepsStuck')).toBe(0);
    expect(valueOf(emitted, 'ETH', 'WithdrawalsStuck')).toBe(0);
    expect(valueOf(emitted, 'POLYGON', 'WithdrawalsStuck')).toBe(1);
  });

  it('uses the configured thresholds', async () => {
    const { emitted, emit } = recorder();
    await reportStuckWork(deps(emit, { sweepStuckMinutes: 2, withdrawalStuckMinutes: 60 }));
    expect(valueOf(emitted, 'ETH', 'PaymentSweepsStuck')).toBe(2);
    expect(valueOf(emitted, 'POLYGON', 'WithdrawalsStuck')).toBe(0);
  });

  it('a failed read prints what it could, leaves the rest out, and then fails the run', async () => {
    const { emitted, emit } = recorder();
    const failing = deps(emit, {
      openPayments: (network: string) => (network === 'POLYGON' ? Promise.reject(new Error('throttled')) : Promise.resolve(payments[network] ?? [])),
    });
    const error = await reportStuckWork(failing).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StuckWorkReadError);
    expect((error as StuckWorkReadError).unread).toEqual(['payments:POLYGON']);
    expect(valueOf(emitted, 'ETH', 'PaymentSweepsStuck')).toBe(1);
    expect(valueOf(emitted, 'POLYGON', 'PaymentSweepsStuck')).toBeUndefined();
    // The withdrawal queue was read: its values are printed for every network.
    expect(valueOf(emitted, 'POLYGON', 'WithdrawalsStuck')).toBe(1);
  });
});

describe('reportHotWallet', () => {
  const WEI = 10n ** 18n;
  const ADDRESS = '0x00000000000000000000000000000000000000aa';

  it('prints the below-minimum flag (one metric across networks) only for a network below its minimum, and no balance metric', async () => {
    const { emitted, emit } = recorder();
    const balances: Record<string, bigint> = { ETH: WEI / 100n, POLYGON: 3n * WEI };
    const readings = await reportHotWallet(['ETH', 'POLYGON'], {
      address: () => Promise.resolve(ADDRESS),
      balance: (network, address) => (address === ADDRESS ? Promise.resolve(balances[network] ?? 0n) : Promise.reject(new Error('wrong address'))),
      minimums: { ETH: '0.05' },
      emit,
    });
    expect(readings.map((r) => [r.network, r.balance, r.belowMinimum])).toEqual([
      ['ETH', '0.01', true],
      ['POLYGON', '3', false],
    ]);
    expect(emitted.every((e) => e.namespace === 'Gateway/ChainTx')).toBe(true);
    expect(valueOf(emitted, 'ETH', 'HotWalletBelowMinimum')).toBe(1);
    // No minimum for POLYGON: nothing printed (silence is the good case; a printed 0 would bill the metric).
    expect(valueOf(emitted, 'POLYGON', 'HotWalletBelowMinimum')).toBeUndefined();
    const flags = emitted.flatMap((e) => e.metrics);
    expect(flags.map((m) => [m.name, m.value, m.aggregate])).toEqual([['HotWalletBelowMinimum', 1, true]]);
  });

  it('never throws: a network whose balance cannot be read is left out, a missing key prints nothing', async () => {
    const { emitted, emit } = recorder();
    const readings = await reportHotWallet(['ETH', 'BSC'], {
      address: () => Promise.resolve(ADDRESS),
      balance: (network) => (network === 'BSC' ? Promise.reject(new Error('rpc down')) : Promise.resolve(WEI)),
      minimums: { ETH: '2', BSC: '2' },
      emit,
    });
    expect(readings.map((r) => r.network)).toEqual(['ETH']);
    expect(emitted.map((e) => e.dimensions.network)).toEqual(['ETH']);

    const none = recorder();
    await expect(
      reportHotWallet(['ETH'], {
        address: () => Promise.reject(new Error('HOT_WALLET_KEY_ID is not set')),
        balance: () => Promise.resolve(WEI),
        minimums: {},
        emit: none.emit,
      }),
    ).resolves.toEqual([]);
    expect(none.emitted).toEqual([]);
  });

  it("the networks the engine signs on (EVM and TRON, the same key), in each one's native decimals; BTC skipped", async () => {
    const { emitted, emit } = recorder();
    const asked: string[] = [];
    const readings = await reportHotWallet(['TRX', 'BTC', 'ETH'], {
      address: () => Promise.resolve(ADDRESS),
      balance: (network) => {
        asked.push(network);
        // TRX: 50 TRX in sun (6 decimals), under its minimum of 100
        return Promise.resolve(network === 'TRX' ? 50_000_000n : WEI);
      },
      minimums: { TRX: '100' },
      emit,
    });
    expect(asked).toEqual(['TRX', 'ETH']);
    expect(readings.map((r) => [r.network, r.balanceValue, r.belowMinimum])).toEqual([
      ['TRX', 50, true],
      ['ETH', 1, false],
    ]);
    // Only TRX is below its minimum.
    expect(emitted.map((e) => e.dimensions.network)).toEqual(['TRX']);
  });
});
