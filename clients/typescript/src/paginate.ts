import type { components, paths } from './schema.js';

/**
 * Every item of every page of a list endpoint, whichever of the interface's list shapes it answers with:
 * - page numbers: `{count, next, previous, results}`, the next page being the query of the `next` URL;
 * - cursors: `next_cursor` beside the items, sent back as `cursor` until it is null;
 * - offsets: `{total | count, offset?, limit?, <items>}`, or a bare array paged by `skip` and `limit`; the offset
 *   moves by the items received until `total` is reached or a page comes back empty (or short of `limit`).
 */

type JsonOk<Operation> = Operation extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;
type ItemsOf<Body> = Body extends readonly (infer Item)[]
  ? Item
  : Body extends object
    ? { [K in keyof Body]: NonNullable<Body[K]> extends readonly (infer Item)[] ? Item : never }[keyof Body]
    : never;

/** The paths whose GET answers a list. */
export type ListPath = { [P in keyof paths]: paths[P] extends { get: infer G } ? ([ItemsOf<JsonOk<G>>] extends [never] ? never : P) : never }[keyof paths];
/** The item type of a list path. */
export type ListItem<P extends ListPath> = ItemsOf<JsonOk<paths[P]['get']>>;

type Parameters<P extends ListPath> = paths[P]['get'] extends { parameters: infer Params } ? Params : never;
export interface PaginateInit<P extends ListPath> {
  readonly query?: Parameters<P> extends { query?: infer Q } ? Q : never;
  readonly path?: Parameters<P> extends { path?: infer Path } ? Path : never;
}

export type Paginate = <P extends ListPath>(path: P, init?: PaginateInit<P>) => AsyncIterableIterator<ListItem<P>>;

/** A page the gateway refused (`error` is its envelope) or a body that is no list. */
export class GatewayListError extends Error {
  override readonly name = 'GatewayListError';
  constructor(
    message: string,
    readonly status: number,
    readonly error: components['schemas']['ErrorEnvelope'] | undefined,
  ) {
    super(message);
  }
}

type Query = Record<string, unknown>;
type GetPage = (path: string, init: { params: { query: Query; path?: unknown } }) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** The array property that holds a page's items, by name first. */
const ITEM_KEYS = ['results', 'transactions', 'withdrawals', 'accounts', 'webhooks', 'items', 'data'];

function itemsOf(body: unknown, path: string, status: number): unknown[] {
  if (Array.isArray(body)) return body;
  if (body !== null && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    const named = ITEM_KEYS.find((k) => Array.isArray(record[k]));
    if (named) return record[named] as unknown[];
    const arrays = Object.values(record).filter(Array.isArray);
    if (arrays.length === 1) return arrays[0] as unknown[];
  }
  throw new GatewayListError(`GET ${path} did not answer a list.`, status, undefined);
}

const numberOf = (value: unknown): number | undefined =>
  typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;

/** The query of the page after `body`, or null when `body` was the last. */
function nextQuery(body: unknown, items: readonly unknown[], query: Query): Query | null {
  if (items.length === 0) return null;
  if (Array.isArray(body)) {
    const limit = numberOf(query.limit);
    if (limit !== undefined && items.length < limit) return null;
    return { ...query, skip: (numberOf(query.skip) ?? 0) + items.length };
  }
  const page = body as Record<string, unknown>;
  if ('next_cursor' in page) {
    if (typeof page.next_cursor !== 'string' || page.next_cursor === '') return null;
    const { offset: _offset, ...rest } = query;
    return { ...rest, cursor: page.next_cursor };
  }
  if ('next' in page) {
    if (typeof page.next !== 'string' || page.next === '') return null;
    return Object.fromEntries(new URL(page.next, 'http://next.invalid').searchParams);
  }
  const total = numberOf(page.total) ?? numberOf(page.count);
  if (total === undefined) return null;
  const offset = (numberOf(page.offset) ?? numberOf(query.offset) ?? 0) + items.length;
  return offset < total ? { ...query, offset } : null;
}

export function paginator(get: GetPage): Paginate {
  return async function* paginate(path: string, init: { query?: unknown; path?: unknown } = {}) {
    let query: Query | null = { ...((init.query as Query | undefined) ?? {}) };
    while (query !== null) {
      const { data, error, response } = await get(path, { params: { query, ...(init.path === undefined ? {} : { path: init.path }) } });
      if (error !== undefined || data === undefined) {
        const envelope = error as components['schemas']['ErrorEnvelope'] | undefined;
        throw new GatewayListError(`GET ${path} answered ${response.status}${envelope?.error ? `: ${envelope.error.message}` : ''}`, response.status, envelope);
      }
      const items = itemsOf(data, path, response.status);
      yield* items;
      query = nextQuery(data, items, query);
    }
  } as Paginate;
}
