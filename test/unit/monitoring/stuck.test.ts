import { checkWalletBalance, countStuck, isStuck } from '../../../shared/domain/monitoring.js';
import type { StatusSince } from '../../../shared/domain/monitoring.js';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const ago = (minutes: number): string => new Date(NOW.getTime() - minutes * 60_000).toISOString();
const item = (id: string, network: string, status: string, updatedAt: string): StatusSince => ({ id, network, status, updatedAt });
const sweeps = { status: 'sending', thresholdMinutes: 15 };

describe('isStuck', () => {
  it('is stuck only in the watched status and only LONGER than the threshold', () => {
    expect(isStuck(item('a', 'ETH', 'sending', ago(16)), sweeps, NOW)).toBe(true);
    expect(isStuck(item('a', 'ETH', 'sending', ago(15.01)), sweeps, NOW)).toBe(true);
    expect(isStuck(item('a', 'ETH', 'sending', ago(15)), sweeps, NOW)).toBe(false);
    expect(isStuck(item('a', 'ETH', 'sending', ago(1)), sweeps, NOW)).toBe(false);
    // Another status never counts, however old.
    expect(isStuck(item('a', 'ETH', 'confirmed', ago(600)), sweeps, NOW)).toBe(false);
    expect(isStuck(item('a', 'ETH', 'completed', ago(600)), sweeps, NOW)).toBe(false);
  });

  it('a time in the future (clock skew) is not stuck; an unreadable time is', () => {
    expect(isStuck(item('a', 'ETH', 'sending', ago(-60)), sweeps, NOW)).toBe(false);
    expect(isStuck(item('a', 'ETH', 'sending', 'not a date'), sweeps, NOW)).toBe(true);
  });
});

describe('countStuck', () => {
  it('counts per network, 0 for every network asked for, ignoring other statuses and fresh items', () => {
    const items = [
      item('p1', 'ETH', 'sending', ago(20)),
      item('p2', 'ETH', 'sending', ago(90)),
      item('p3', 'ETH', 'sending', ago(5)),
      item('p4', 'ETH', 'confirming', ago(500)),
      item('p5', 'POLYGON', 'sending', ago(16)),
    ];
    const count = countStuck(items, sweeps, NOW, ['ETH', 'POLYGON', 'BSC']);
    expect(count.byNetwork).toEqual({ ETH: 2, POLYGON: 1, BSC: 0 });
    expect(count.total).toBe(3);
    expect(count.ids).toEqual(['p2', 'p1', 'p5']);
    expect(count.oldestMinutes).toBe(90);
  });

  it('nothing stuck: every network 0, no ids, no oldest age', () => {
    const count = countStuck([item('w1', 'ETH', 'processing', ago(29))], { status: 'processing', thresholdMinutes: 30 }, NOW, ['ETH', 'TRX']);
    expect(count).toEqual({ byNetwork: { ETH: 0, TRX: 0 }, total: 0, ids: [], oldestMinutes: null });
  });

  it('a stuck item of a network not asked for is still counted', () => {
    const count = countStuck([item('w1', 'BASE', 'processing', ago(31))], { status: 'processing', thresholdMinutes: 30 }, NOW, ['ETH']);
    expect(count.byNetwork).toEqual({ ETH: 0, BASE: 1 });
    expect(count.total).toBe(1);
  });

  it('undatable items come first and do not make up an age', () => {
    const count = countStuck([item('old', 'ETH', 'sending', ago(40)), item('odd', 'ETH', 'sending', '')], sweeps, NOW);
    expect(count.ids).toEqual(['odd', 'old']);
    expect(count.oldestMinutes).toBe(40);
    expect(countStuck([item('odd', 'ETH', 'sending', '')], sweeps, NOW).oldestMinutes).toBeNull();
  });

  it('refuses a threshold that is not a number of minutes', () => {
    expect(() => countStuck([], { status: 'sending', thresholdMinutes: Number.NaN }, NOW)).toThrow(RangeError);
    expect(() => countStuck([], { status: 'sending', thresholdMinutes: -1 }, NOW)).toThrow(RangeError);
  });
});

describe('checkWalletBalance', () => {
  const WEI = 10n ** 18n;

  it('converts wei to native units, exactly and as a number', () => {
    const check = checkWalletBalance(WEI / 20n + 1n, 18, null);
    expect(check.balance).toBe('0.050000000000000001');
    expect(check.balanceValue).toBeCloseTo(0.05, 12);
  });

  it('no minimum: never below it', () => {
    expect(checkWalletBalance(0n, 18, null)).toMatchObject({ minimum: null, belowMinimum: false });
    expect(checkWalletBalance(0n, 18, undefined).belowMinimum).toBe(false);
  });

  it('compares exactly in base units: one wei under the minimum is below, the minimum itself is not', () => {
    expect(checkWalletBalance(WEI / 20n - 1n, 18, '0.05').belowMinimum).toBe(true);
    expect(checkWalletBalance(WEI / 20n, 18, '0.05').belowMinimum).toBe(false);
    expect(checkWalletBalance(WEI, 18, '0.05')).toMatchObject({ balance: '1', balanceValue: 1, minimum: '0.05', belowMinimum: false });
  });

  it('a minimum finer than the coin rounds up (stricter)', () => {
    // 8 decimals: 0.000000015 needs 2 base units.
    expect(checkWalletBalance(1n, 8, '0.000000015').belowMinimum).toBe(true);
    expect(checkWalletBalance(2n, 8, '0.000000015').belowMinimum).toBe(false);
  });
});
