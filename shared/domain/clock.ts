/**
 * Time as a port (DESIGN section 6): schedules, expiries and retries read the time from a Clock, so tests run
 * them in virtual time (test/support/clock.ts) instead of waiting.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
