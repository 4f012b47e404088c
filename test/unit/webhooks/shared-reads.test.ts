import { sharedReads } from '../../../shared/runtime/webhooks.js';

/** The delivery worker's configuration reads: one read for the events planned together, fresh again after the window. */
describe('sharedReads', () => {
  let clock = 0;
  const reads: string[] = [];
  let fail = false;
  const read = sharedReads(
    async (tenantId: string) => {
      const n = reads.push(tenantId);
      await new Promise((r) => setTimeout(r, 5));
      if (fail) throw new Error('unavailable');
      return `settings of ${tenantId} #${n}`;
    },
    100,
    () => clock,
  );

  beforeEach(() => {
    clock = 0;
    reads.length = 0;
    fail = false;
  });

  it('events planned side by side share one read per tenant', async () => {
    const got = await Promise.all([read('t1'), read('t1'), read('t2'), read('t1')]);
    expect(reads).toEqual(['t1', 't2']);
    expect(got).toEqual(['settings of t1 #1', 'settings of t1 #1', 'settings of t2 #2', 'settings of t1 #1']);
  });

  it('reads again once the window after the read has passed', async () => {
    clock = 1_000;
    await read('t3');
    clock = 1_100;
    await read('t3');
    expect(reads).toEqual(['t3']);
    clock = 1_101;
    expect(await read('t3')).toBe('settings of t3 #2');
    expect(reads).toEqual(['t3', 't3']);
  });

  it('a failed read is not shared with the next event', async () => {
    clock = 5_000;
    fail = true;
    await expect(read('t4')).rejects.toThrow('unavailable');
    fail = false;
    expect(await read('t4')).toBe('settings of t4 #2');
  });
});
