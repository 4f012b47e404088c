import { createPipeline, type ApiOptions } from './pipeline-core.js';
import type { AnyRoute } from './route.js';

/**
 * The API of a group whose routes are all public (system, v0.9, the `$default` 404): the
 * pipeline of `createApi` without the tenant's side (credentials, tenants, rate limits, idempotency records), so
 * its Lambda neither bundles nor loads them. It answers exactly as `createApi` would: a public route never
 * authenticates, and idempotency keys are kept for authenticated requests only.
 */
export function createPublicApi<D>(routes: readonly AnyRoute<D>[], deps: D, options: ApiOptions = {}) {
  const guarded = routes.filter((r) => r.auth !== 'public');
  if (guarded.length > 0) {
    const named = guarded.map((r) => `${r.method} ${r.path}`).join(', ');
    throw new Error(`createPublicApi serves public routes only; ${named} need createApi (shared/http/pipeline.ts)`);
  }
  return createPipeline(routes, deps, options, null);
}
