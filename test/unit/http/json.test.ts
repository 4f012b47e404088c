import fc from 'fast-check';
import { stringify } from 'lossless-json';
import { JsonNumber } from '../../../shared/domain/json-number.js';
import { parseJson, toJson } from '../../../shared/http/json.js';

/** What answers were written with before: lossless-json's stringify with JsonNumber as a number. */
const lossless = (value: unknown): string =>
  stringify(value, null, undefined, [{ test: (v: unknown) => v instanceof JsonNumber, stringify: (v: unknown) => (v as JsonNumber).text }]) ?? 'null';

const jsonNumber = fc
  .oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.bigInt())
  .map((n) => JsonNumber.of(typeof n === 'bigint' ? n : JSON.stringify(n)));
const leaf = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  // Controls, quotes, backslashes and lone surrogates: the characters JSON escapes.
  fc.string({ unit: fc.constantFrom('\u0000', '\u001f', '"', '\\', '\ud800', '\udfff', 'a', '\u2028') }),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt(),
  jsonNumber,
  fc.date({ noInvalidDate: false }),
  fc.constant(() => 1),
  fc.constant(Symbol('s')),
  fc.constant({ toJSON: () => ({ inner: 'x' }) }),
  fc.constant({ toJSON: () => undefined }),
);
const value = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('tree'), { maxLength: 5 }),
  object: fc.dictionary(fc.string(), tie('tree'), { maxKeys: 6 }),
})).tree;

describe('toJson', () => {
  it('writes what JSON.stringify writes, JsonNumbers and bigints as their digits', () => {
    expect(toJson({ a: JsonNumber.of('25.10'), b: 10n, c: [undefined, () => 1], d: undefined, e: new Date(0), f: 'é"\n' })).toBe(
      '{"a":25.10,"b":10,"c":[null,null],"e":"1970-01-01T00:00:00.000Z","f":"é\\"\\n"}',
    );
    expect([toJson(undefined), toJson(NaN), toJson([]), toJson({}), toJson(new Map([['k', 1]]))]).toEqual(['null', 'null', '[]', '{}', '{}']);
  });

  it('is the same text as lossless-json wrote, for any value', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(toJson(v)).toBe(lossless(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips numbers exactly through parseJson', () => {
    const text = '{"amount":25.10,"list":[1e400,-0.000000000000000001],"big":123456789012345678901234567890}';
    expect(toJson(parseJson(text))).toBe(text);
  });
});
