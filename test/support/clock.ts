import type { Clock } from '../../shared/domain/clock.js';

/** A clock that moves only when the test says so. */
export class VirtualClock implements Clock {
  private ms: number;

  constructor(start: Date | number = Date.parse('2026-01-01T00:00:00.000Z')) {
    this.ms = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  advance(ms: number): void {
    this.ms += ms;
  }

  set(at: Date | number): void {
    this.ms = typeof at === 'number' ? at : at.getTime();
  }
}
