import { readFileSync } from 'node:fs';
import * as z from 'zod';
import openapi from '../../../functions/system/openapi.json' with { type: 'json' };
import { publishedWordingTable, renderWordingTable, WORDING_TABLE_FILE } from '../../../scripts/error-wording-table.js';
import { documentedRoutes } from '../../../scripts/openapi-document.js';
import { WORDING, wordingOf } from '../../../shared/domain/errors-wording.js';
import { JsonNumber } from '../../../shared/domain/json-number.js';
import { queryParameters } from '../../../shared/http/middleware/validation.js';
import type { AnyRoute } from '../../../shared/http/route.js';
import { decimal, integerInput, queryBoolean, queryInteger } from '../../../shared/usecases/schema.js';

/**
 * One wording per kind of input error (shared/domain/errors-wording.ts): the zod error map words each kind from
 * the table, docs/requests.md publishes the table as the code has it, and every route's query schema names the
 * parameters it takes (a closed query refuses the rest), which are the ones the OpenAPI document publishes.
 */

/** The messages a schema's parse gives each field, as the request pipeline words them. */
function messages(schema: z.ZodType, input: unknown): Record<string, string[]> {
  const parsed = schema.safeParse(input, { error: wordingOf });
  if (parsed.success) throw new Error(`accepted ${JSON.stringify(input)}`);
  const out: Record<string, string[]> = {};
  for (const issue of parsed.error.issues) (out[issue.path.map(String).join('.') || '(root)'] ??= []).push(issue.message);
  return out;
}

describe('error wording', () => {
  it('words each kind of zod issue from the one table', () => {
    const body = z.object({
      name: z.string().trim().min(1).max(5),
      code: z.string().min(3),
      count: z.number().int().min(1).max(10),
      share: z.number().gt(0).lt(100),
      kind: z.enum(['a', 'b']),
      flag: z.boolean(),
      tags: z.array(z.string()).min(1).max(2),
      meta: z.object({}),
      id: z.string().uuid(),
      email: z.string().email(),
      link: z.string().url(),
      amount: decimal({ maxScale: 2, positive: true }),
      whole: integerInput(),
    });
    const valid = { name: 'n', code: 'abc', count: 1, share: 1, kind: 'a', flag: true, tags: ['x'], meta: {}, id: '5f0c6f0e-8a3b-4c55-9e1a-0d6f4c2b7a10' };
    const base = { ...valid, email: 'a@example.com', link: 'https://example.com/', amount: '1', whole: '1' };
    expect(messages(body, {})).toMatchObject({ name: [WORDING.required], count: [WORDING.required], amount: [WORDING.required], whole: [WORDING.required] });
    expect(messages(body, { ...base, name: null, flag: null, amount: null })).toEqual({ name: [WORDING.null], flag: [WORDING.null], amount: [WORDING.null] });
    expect(messages(body, { ...base, name: new JsonNumber('5'), count: 'x', flag: 'yes', tags: 'x', meta: [], amount: true, whole: {} })).toEqual({
      name: [WORDING.wrongType('string')],
      count: [WORDING.wrongType('number')],
      flag: [WORDING.wrongType('boolean')],
      tags: [WORDING.wrongType('array')],
      meta: [WORDING.wrongType('object')],
      amount: [WORDING.wrongType('number')],
      whole: [WORDING.wrongType('number')],
    });
    expect(messages(body, { ...base, name: '  ', code: 'ab', count: 0, share: 0, kind: 'c', tags: [] })).toEqual({
      name: [WORDING.blank],
      code: [WORDING.minLength(3)],
      count: [WORDING.min(1)],
      share: [WORDING.min(0, true)],
      kind: [WORDING.choice(['a', 'b'])],
      tags: [WORDING.minItems(1)],
    });
    expect(messages(body, { ...base, name: 'toolong', count: 11, share: 100, tags: ['a', 'b', 'c'], count2: 1 })).toEqual({
      name: [WORDING.maxLength(5)],
      count: [WORDING.max(10)],
      share: [WORDING.max(100, true)],
      tags: [WORDING.maxItems(2)],
    });
    expect(messages(body, { ...base, count: 1.5, id: 'x', email: 'x', link: 'x', amount: '1.234', whole: '1.5' })).toEqual({
      count: [WORDING.wrongType('integer')],
      id: [WORDING.format('uuid')],
      email: [WORDING.format('email')],
      link: [WORDING.format('url')],
      amount: [WORDING.scale(2)],
      whole: [WORDING.format('integer')],
    });
    expect(messages(body, { ...base, amount: 'abc' })).toEqual({ amount: [WORDING.format('decimal')] });
    expect(messages(body, { ...base, amount: '0' })).toEqual({ amount: [WORDING.min(0, true)] });
    expect(messages(z.strictObject({ a: z.string() }), { a: 'x', b: 1 })).toEqual({ '(root)': [WORDING.unknownField] });
    expect(messages(z.object({ q: queryBoolean(), n: queryInteger(1, 5) }), { q: 'maybe', n: '9' })).toEqual({
      q: [WORDING.wrongType('boolean')],
      n: [WORDING.max(5)],
    });
  });

  it('docs/requests.md publishes the error wording table the code has (npx tsx scripts/error-wording-table.ts)', () => {
    expect(publishedWordingTable(readFileSync(WORDING_TABLE_FILE, 'utf8'))).toBe(renderWordingTable());
    expect(renderWordingTable()).toContain('| missing field | This field is required. |');
  });
});

describe('closed queries', () => {
  const document = openapi as unknown as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> };
  const routes = documentedRoutes() as readonly AnyRoute[];

  it('every route names the query parameters it takes, and they are the ones the OpenAPI document publishes', () => {
    const taken = Object.fromEntries(routes.map((r) => [`${r.method} ${r.path}`, [...queryParameters(r)].sort()]));
    const published = Object.fromEntries(
      routes.map((r) => [
        `${r.method} ${r.path}`,
        (document.paths[r.path]?.[r.method.toLowerCase()]?.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map((p) => p.name)
          .sort(),
      ]),
    );
    expect(taken).toEqual(published);
    expect(taken['GET /payments/']).toEqual(expect.arrayContaining(['page', 'page_size', 'limit', 'offset', 'currency', 'pay_currency']));
    expect(taken['GET /user/me/']).toEqual([]);
  });
});
