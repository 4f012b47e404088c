import type { SystemPorts } from './ports.js';

/** True when the table answers within a second. */
export async function checkHealth(deps: Pick<SystemPorts, 'table'>): Promise<boolean> {
  try {
    await deps.table.ping(AbortSignal.timeout(1000));
    return true;
  } catch {
    return false;
  }
}
