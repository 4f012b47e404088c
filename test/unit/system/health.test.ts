import { checkHealth } from '../../../shared/usecases/system/health.js';

describe('GET /status/ (use case)', () => {
  it('is healthy when the table answers and not when the probe fails or hangs', async () => {
    expect(await checkHealth({ table: { ping: async () => undefined } })).toBe(true);
    expect(await checkHealth({ table: { ping: async () => Promise.reject(new Error('down')) } })).toBe(false);
    const hanging = { ping: (signal: AbortSignal) => new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))) };
    expect(await checkHealth({ table: hanging })).toBe(false);
  });
});
