import { config } from '../config/config.js';
import { dynamoTableProbe } from '../store/health.js';
import type { SystemPorts } from '../usecases/system/ports.js';

export interface SystemDeps extends SystemPorts {
  /** The deployment's public base URL for the OpenAPI document's `servers` (read when first asked). */
  readonly publicBaseUrl: () => string | undefined;
}

/** The system group: the table probe behind `/status/`, and the base URL the documentation names. */
export function systemRuntime(): SystemDeps {
  return { table: dynamoTableProbe, publicBaseUrl: () => config().PUBLIC_BASE_URL };
}
