import type { AnyRoute, RouteRequest } from '../route.js';
import type { TenantAccess } from './access.js';
import type { ApiResult, RequestState } from './request.js';
import { serialise } from './serialise.js';

/**
 * `Idempotency-Key` of an authenticated request to an idempotent route (shared/http/idempotency.ts): the first
 * answer is replayed (`Idempotent-Replayed: true`), a route that throws gives its key up; otherwise the route is
 * simply called.
 */
export async function handleIdempotently<D>(
  route: AnyRoute<D>,
  request: RouteRequest<unknown, unknown, unknown>,
  deps: D,
  key: string | undefined,
  state: RequestState,
  access: TenantAccess | null,
): Promise<ApiResult> {
  if (!(route.idempotent && key && state.principal && access)) return serialise(await route.handle(request, deps));
  const outcome = await access.beginIdempotency({
    tenantId: state.principal.tenant.id,
    key,
    method: request.method,
    path: request.path,
    rawBody: state.rawBody ?? '',
    now: state.now,
  });
  if (outcome.kind === 'replay') return serialise({ ...outcome.result, headers: { ...outcome.result.headers, 'Idempotent-Replayed': 'true' } });
  try {
    const result = await route.handle({ ...request, idempotency: outcome.handle }, deps);
    await outcome.finish(result);
    return serialise(result);
  } catch (error) {
    await outcome.abandon();
    throw error;
  }
}
