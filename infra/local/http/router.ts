/**
 * API Gateway's route selection (HTTP API): exact routes win over `{param}` routes, which win over greedy
 * `{proxy+}` routes (the longest prefix first); `ANY /x` also takes `/x/`; `$default` takes the rest.
 */

/** What a route leads to (a function of the local stack). */
export interface RouteTarget {
  readonly name: string;
}

export interface Route<T extends RouteTarget = RouteTarget> {
  readonly routeKey: string;
  /** Upper-case method or 'ANY'. */
  readonly method: string;
  readonly target: T;
  /** Path segments without the leading empty one; `{x}` and `{x+}` kept as written. */
  readonly segments: readonly string[];
  readonly greedy: string | undefined;
  /** For greedy routes: the literal prefix ending in '/'. */
  readonly prefix: string;
  readonly literals: number;
}

export interface Match<T extends RouteTarget = RouteTarget> {
  readonly route: Route<T>;
  readonly pathParameters: Record<string, string> | undefined;
}

export class Router<T extends RouteTarget = RouteTarget> {
  private readonly exact = new Map<string, Route<T>>();
  private readonly withParams: Route<T>[] = [];
  private readonly greedy: Route<T>[] = [];
  private fallback: Route<T> | undefined;

  constructor(routes: readonly Route<T>[]) {
    for (const route of routes) {
      if (route.routeKey === '$default') {
        if (this.fallback) throw new Error(`$default is routed twice (${this.fallback.target.name}, ${route.target.name})`);
        this.fallback = route;
      } else if (route.greedy !== undefined) {
        this.greedy.push(route);
      } else if (route.segments.some(isParam)) {
        this.withParams.push(route);
      } else {
        const key = `${route.method} /${route.segments.join('/')}`;
        if (this.exact.has(key)) throw new Error(`route ${route.routeKey} is defined twice`);
        this.exact.set(key, route);
      }
    }
    // More literal segments first; then ANY after a specific method.
    const order = (a: Route<T>, b: Route<T>): number =>
      b.literals - a.literals || b.prefix.length - a.prefix.length || Number(a.method === 'ANY') - Number(b.method === 'ANY');
    this.withParams.sort(order);
    this.greedy.sort(order);
  }

  match(method: string, path: string): Match<T> | undefined {
    // API Gateway route keys cannot end in '/', and `/x/` goes to the `/x` route.
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const exact = this.exact.get(`${method} ${trimmed}`) ?? this.exact.get(`ANY ${trimmed}`);
    if (exact) return { route: exact, pathParameters: undefined };
    if (this.withParams.length > 0) {
      const parts = trimmed.split('/').slice(1);
      for (const route of this.withParams) {
        if (route.method !== 'ANY' && route.method !== method) continue;
        const params = matchSegments(route.segments, parts);
        if (params) return { route, pathParameters: params };
      }
    }
    for (const route of this.greedy) {
      if (route.method !== 'ANY' && route.method !== method) continue;
      if (path.length <= route.prefix.length || !path.startsWith(route.prefix)) continue;
      let params: Record<string, string> | undefined = {};
      if (route.segments.length > 1) {
        // Literal or {param} segments before the greedy one.
        params = matchSegments(route.segments.slice(0, -1), path.slice(1, route.prefix.length - 1).split('/'));
        if (!params) continue;
      }
      params[route.greedy as string] = path.slice(route.prefix.length);
      return { route, pathParameters: params };
    }
    return this.fallback ? { route: this.fallback, pathParameters: undefined } : undefined;
  }
}

const isParam = (segment: string): boolean => segment.startsWith('{') && segment.endsWith('}');

function matchSegments(segments: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  let params: Record<string, string> | undefined;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    const part = parts[i] as string;
    if (isParam(segment)) {
      if (part === '') return undefined;
      (params ??= {})[segment.slice(1, -1)] = part;
    } else if (segment !== part) {
      return undefined;
    }
  }
  return params ?? {};
}

/** A route key (`ANY /x`, `GET /x/{id}`, `ANY /x/{proxy+}`, `$default`) as a route to `target`. */
export function compileRoute<T extends RouteTarget>(routeKey: string, target: T): Route<T> {
  if (routeKey === '$default') {
    return { routeKey, method: 'ANY', target, segments: [], greedy: undefined, prefix: '', literals: 0 };
  }
  const match = /^([A-Z]+) (\/.*)$/.exec(routeKey);
  if (!match) throw new Error(`invalid route key "${routeKey}" (function ${target.name})`);
  const method = match[1] as string;
  const path = match[2] as string;
  if (path.length > 1 && path.endsWith('/')) throw new Error(`route key "${routeKey}" ends in '/' (API Gateway rejects it)`);
  const segments = path === '/' ? [] : path.slice(1).split('/');
  const last = segments[segments.length - 1];
  let greedy: string | undefined;
  let prefix = '';
  if (last !== undefined && /^\{[^}]+\+\}$/.test(last)) {
    greedy = last.slice(1, -2);
    prefix = `/${segments
      .slice(0, -1)
      .map((s) => `${s}/`)
      .join('')}`;
  }
  for (const s of greedy ? segments.slice(0, -1) : segments) {
    if (s.includes('+')) throw new Error(`route key "${routeKey}": a greedy variable must be the last segment`);
  }
  return { routeKey, method, target, segments, greedy, prefix, literals: segments.filter((s) => !isParam(s)).length };
}
