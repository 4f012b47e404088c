import {
  bigintDigits,
  boolean,
  decimal,
  decimalNumber,
  decimalValue,
  int,
  jsonRecord,
  list,
  nonEmptyValue,
  optionalInt,
  optionalMatching,
  optionalOneOf,
  optionalText,
  optionalUrl,
  parsedBy,
  positiveInt,
  Refusal,
  text,
  textOr,
  url,
  urlValue,
  usdLimit,
} from '../../../shared/config/readers.js';
import type { Reader } from '../../../shared/config/readers.js';

/** The refusal's message, failing the test when the reader accepts. */
function refusal(read: Reader<unknown>, raw: string | undefined): string {
  try {
    read(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(Refusal);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

describe('configuration readers', () => {
  it('text: required and non-empty; textOr and optionalText default when unset only', () => {
    expect(text()('t')).toBe('t');
    expect(refusal(text(), undefined)).toBe('is required');
    expect(refusal(text(), '')).toBe('must not be empty');
    expect(textOr('prod')(undefined)).toBe('prod');
    expect(textOr('prod')('dev')).toBe('dev');
    expect(refusal(textOr('prod'), '')).toBe('must not be empty');
    expect(optionalText()(undefined)).toBeUndefined();
    expect(refusal(optionalText(), '')).toBe('must not be empty');
  });

  it('int: integers within the bounds, the default when unset', () => {
    const read = int({ min: 10, max: 86_400 }, 120);
    expect(read(undefined)).toBe(120);
    expect(read('10')).toBe(10);
    expect(read('86400')).toBe(86_400);
    expect(refusal(read, '9')).toBe('must be at least 10, not 9');
    expect(refusal(read, '86401')).toBe('must be at most 86400, not 86401');
    expect(refusal(read, '12.5')).toBe('must be an integer, not "12.5"');
    expect(refusal(read, 'abc')).toBe('must be a number, not "abc"');
    expect(refusal(read, '')).toBe('must be a number, not ""');
    expect(refusal(read, 'Infinity')).toBe('must be a number, not "Infinity"');
    expect(refusal(read, '1e30')).toBe('must be an integer, not "1e30"');
  });

  it('positiveInt refuses zero and negatives; optionalInt is undefined when unset', () => {
    expect(positiveInt(3600)(undefined)).toBe(3600);
    expect(positiveInt(3600)('60')).toBe(60);
    expect(refusal(positiveInt(3600), '0')).toBe('must be at least 1, not 0');
    expect(refusal(positiveInt(3600), '-5')).toBe('must be at least 1, not -5');
    expect(optionalInt({ min: 1 })(undefined)).toBeUndefined();
    expect(optionalInt({ min: 1 })('2')).toBe(2);
    expect(refusal(optionalInt({ min: 1 }), '0')).toBe('must be at least 1, not 0');
  });

  it('decimalNumber takes fractions within the bounds', () => {
    const read = decimalNumber({ min: 0.1, max: 60 }, 5);
    expect(read(undefined)).toBe(5);
    expect(read('0.5')).toBe(0.5);
    expect(refusal(read, '0.05')).toBe('must be at least 0.1, not 0.05');
    expect(refusal(read, '61')).toBe('must be at most 60, not 61');
    expect(refusal(read, 'five')).toBe('must be a number, not "five"');
  });

  it('decimal: non-negative decimal strings kept as written', () => {
    expect(decimal('0')(undefined)).toBe('0');
    expect(decimal('0')('0.50')).toBe('0.50');
    expect(refusal(decimal('0'), '-1')).toBe('must be a non-negative decimal such as 0.5, not "-1"');
    expect(refusal(decimal('0'), '1e3')).toMatch(/non-negative decimal/);
    expect(refusal(decimal('0'), '.5')).toMatch(/non-negative decimal/);
  });

  it('url: parsable URLs, blanks around dropped', () => {
    expect(url('https://a.test/x')(undefined)).toBe('https://a.test/x');
    expect(url('https://a.test/x')(' http://127.0.0.1:8545 ')).toBe('http://127.0.0.1:8545');
    expect(refusal(url('https://a.test'), 'not a url')).toBe('must be a URL, not "not a url"');
    expect(refusal(url('https://a.test'), '')).toBe('must be a URL, not ""');
    expect(optionalUrl()(undefined)).toBeUndefined();
    expect(refusal(optionalUrl(), 'example.com')).toBe('must be a URL, not "example.com"');
  });

  it('optionalOneOf and optionalMatching', () => {
    const read = optionalOneOf(['engine', 'direct']);
    expect(read(undefined)).toBeUndefined();
    expect(read('direct')).toBe('direct');
    expect(refusal(read, 'Engine')).toBe('must be one of engine, direct, not "Engine"');
    const address = optionalMatching(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');
    expect(address(`0x${'ab'.repeat(20)}`)).toBe(`0x${'ab'.repeat(20)}`);
    expect(refusal(address, '0x12')).toBe('must be a 0x-prefixed 20-byte hex address');
  });

  it('boolean: true|false|1|0 only', () => {
    expect(boolean(false)(undefined)).toBe(false);
    expect(boolean(true)(undefined)).toBe(true);
    expect(boolean(false)('1')).toBe(true);
    expect(boolean(true)('0')).toBe(false);
    expect(boolean(false)('true')).toBe(true);
    expect(refusal(boolean(false), 'yes')).toBe('must be true, false, 1 or 0, not "yes"');
    expect(refusal(boolean(false), 'TRUE')).toMatch(/must be true, false, 1 or 0/);
  });

  it('bigintDigits: decimal digits only, as a bigint', () => {
    expect(bigintDigits('100000000')(undefined)).toBe(100_000_000n);
    expect(bigintDigits('1')('500000000000000000000')).toBe(500_000_000_000_000_000_000n);
    expect(refusal(bigintDigits('1'), '-1')).toBe('must be decimal digits, not "-1"');
    expect(refusal(bigintDigits('1'), '0x10')).toBe('must be decimal digits, not "0x10"');
    expect(refusal(bigintDigits('1'), '')).toBe('must be decimal digits, not ""');
  });

  it('usdLimit: none is no limit, at most two decimals', () => {
    expect(usdLimit('100000.00')(undefined)).toBe('100000.00');
    expect(usdLimit('100000.00')('none')).toBeNull();
    expect(usdLimit('100000.00')('25')).toBe('25');
    expect(refusal(usdLimit('1'), '1.234')).toBe('must be a USD amount such as 10000.00, or none');
    expect(refusal(usdLimit('1'), 'None')).toBe('must be a USD amount such as 10000.00, or none');
  });

  it('list: comma-separated, blanks and empty items dropped', () => {
    expect(list()(undefined)).toEqual([]);
    expect(list()(' BTC, ,ETH ,')).toEqual(['BTC', 'ETH']);
  });

  it('jsonRecord: a JSON object of strings, each value checked', () => {
    const read = jsonRecord(urlValue, 'must be a JSON object of network to RPC URL');
    expect(read(undefined)).toEqual({});
    expect(read('{"ETH":" https://rpc.test "}')).toEqual({ ETH: 'https://rpc.test' });
    for (const raw of ['{"ETH":"rpc"}', '{"ETH":1}', '["https://rpc.test"]', 'null', '"x"', '{ETH:1}']) {
      expect(refusal(read, raw)).toBe('must be a JSON object of network to RPC URL');
    }
    expect(refusal(jsonRecord(nonEmptyValue, 'm'), '{"ETH":""}')).toBe('m');
    expect(jsonRecord(decimalValue, 'm')('{"ETH":"0.05"}')).toEqual({ ETH: '0.05' });
    expect(refusal(jsonRecord(decimalValue, 'm'), '{"ETH":"-0.05"}')).toBe('m');
  });

  it('parsedBy: the parser error message becomes the refusal', () => {
    const read = parsedBy((raw) => {
      if (raw !== '{}') throw new Error('bad overrides');
      return {};
    });
    expect(read(undefined)).toEqual({});
    expect(refusal(read, '[]')).toBe('bad overrides');
  });
});
