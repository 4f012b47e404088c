import { pingTable } from '../../store/health.js';

/** True when the table answers within a second. */
export async function checkHealth(): Promise<boolean> {
  try {
    await pingTable(AbortSignal.timeout(1000));
    return true;
  } catch {
    return false;
  }
}
