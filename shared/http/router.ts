import type { AnyRoute, Method } from './route.js';

/**
 * Routing on method + rawPath. The trailing slash is significant (`/user/webhooks/` and `/user/webhooks`
 * are different endpoints), which is why the Lambda routes on rawPath rather than API Gateway's route.
 */
interface Compiled {
  readonly route: AnyRoute;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  /** Literal segments count first: `/payments/status/` beats `/payments/{id}/`. */
  readonly literals: number;
}

export type Match =
  | { readonly kind: 'found'; readonly route: AnyRoute; readonly params: Record<string, string> }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly Method[] }
  | { readonly kind: 'not_found' };

function compile(route: AnyRoute): Compiled {
  const names: string[] = [];
  let literals = 0;
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = segment.match(/^\{(\w+)(\+?)\}$/);
      if (param) {
        names.push(param[1] ?? '');
        // `{name+}` is greedy, as in API Gateway: the rest of the path.
        return param[2] ? '(.*)' : '([^/]+)';
      }
      if (segment) literals++;
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), names, literals };
}

export function createRouter(routes: readonly AnyRoute[]): (method: string, path: string) => Match {
  const compiled = routes.map(compile).sort((a, b) => b.literals - a.literals);
  return (method, path) => {
    const allow = new Set<Method>();
    for (const c of compiled) {
      const m = c.pattern.exec(path);
      if (!m) continue;
      if (c.route.method === method) {
        const params: Record<string, string> = {};
        c.names.forEach((name, i) => {
          params[name] = decodeURIComponent(m[i + 1] ?? '');
        });
        return { kind: 'found', route: c.route, params };
      }
      allow.add(c.route.method);
    }
    return allow.size > 0 ? { kind: 'method_not_allowed', allow: [...allow] } : { kind: 'not_found' };
  };
}
