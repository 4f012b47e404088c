import type { Method } from './route.js';

/**
 * Routing on method + rawPath. A route answers its path with or without the trailing slash (main-group
 * paths are written with it, custody paths without), except where the table holds both spellings of a
 * path: there the slash itself picks a variant (`/user/webhooks/` and `/user/webhooks` are different
 * endpoints) and each spelling stays exact.
 */

/** What the router needs of a route: the route definitions, or any `{method, path}` table. */
export interface Routable {
  readonly method: Method;
  /** Path template with `{name}` parameters and at most one trailing `{name+}`. */
  readonly path: string;
}

interface Compiled<R extends Routable> {
  readonly route: R;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  /** Literal segments count first: `/payments/status/` beats `/payments/{id}/`. */
  readonly literals: number;
}

export type Match<R extends Routable = Routable> =
  | { readonly kind: 'found'; readonly route: R; readonly params: Record<string, string> }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly Method[] }
  | { readonly kind: 'not_found' };

/**
 * The other spelling of a path template (`/payments/` <-> `/payments`), or null where there is none: the
 * root, and greedy templates (`{rest+}` already takes every spelling).
 */
export function otherSlashForm(path: string): string | null {
  if (path === '/' || path === '' || /\{\w+\+\}$/.test(path)) return null;
  return path.endsWith('/') ? path.slice(0, -1) : `${path}/`;
}

/** Paths whose other spelling is also a path of the table: the slash picks a variant, both stay exact. */
export function slashVariants(routes: readonly Routable[]): ReadonlySet<string> {
  const paths = new Set(routes.map((r) => r.path));
  return new Set(
    [...paths].filter((p) => {
      const other = otherSlashForm(p);
      return other !== null && paths.has(other);
    }),
  );
}

/** Every spelling a route answers: its path, and the other spelling unless the table makes it a variant. */
export function spellingsOf(route: Routable, variants: ReadonlySet<string>): readonly string[] {
  const other = otherSlashForm(route.path);
  return other === null || variants.has(route.path) ? [route.path] : [route.path, other];
}

function compile<R extends Routable>(route: R, path: string): Compiled<R> {
  const names: string[] = [];
  let literals = 0;
  const source = path
    .split('/')
    .map((segment) => {
      const param = segment.match(/^\{(\w+)(\+?)\}$/);
      if (param) {
        names.push(param[1] ?? '');
        // `{name+}` is greedy, as in API Gateway: the rest of the path, at least one character.
        return param[2] ? '(.+)' : '([^/]+)';
      }
      if (segment) literals++;
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), names, literals };
}

/** A path parameter percent-decoded; text that is not valid percent-encoding is kept as it is (the route's schema judges it). */
function decodeParam(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function createRouter<R extends Routable>(routes: readonly R[]): (method: string, path: string) => Match<R> {
  const variants = slashVariants(routes);
  const byLiterals = (a: Compiled<R>, b: Compiled<R>): number => b.literals - a.literals;
  // Paths as written are tried before their other spellings, so a spelling never shadows a written path.
  const written = routes.map((r) => compile(r, r.path)).sort(byLiterals);
  const respelled = routes
    .flatMap((r) =>
      spellingsOf(r, variants)
        .slice(1)
        .map((p) => compile(r, p)),
    )
    .sort(byLiterals);
  return (method, path) => {
    const allow = new Set<Method>();
    for (const table of [written, respelled]) {
      for (const c of table) {
        const m = c.pattern.exec(path);
        if (!m) continue;
        if (c.route.method !== method) {
          allow.add(c.route.method);
          continue;
        }
        const params: Record<string, string> = {};
        c.names.forEach((name, i) => {
          params[name] = decodeParam(m[i + 1] ?? '');
        });
        return { kind: 'found', route: c.route, params };
      }
    }
    return allow.size > 0 ? { kind: 'method_not_allowed', allow: [...allow] } : { kind: 'not_found' };
  };
}
