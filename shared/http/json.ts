import { parse } from 'lossless-json';
import { JsonNumber } from '../domain/json-number.js';

/**
 * Lossless JSON. `JSON.parse` on Node 20 turns `25.10` into the float 25.1 and loses the text; here every
 * number arrives as a JsonNumber holding its exact text, and JsonNumber (and bigint) values serialise
 * verbatim.
 */
export function parseJson(text: string): unknown {
  return parse(text, null, (value) => new JsonNumber(value));
}

/**
 * The JSON text of an answer: what `JSON.stringify` writes (toJSON, Dates, boxed primitives, undefined and
 * functions left out of objects and null in arrays), except that a JsonNumber is written as its text and a bigint
 * as its digits. Written here rather than through lossless-json's stringify, which asks its number stringifiers
 * about every value of every answer; the output is the same (test/unit/http/json.test.ts).
 */
export function toJson(value: unknown): string {
  return write(value) ?? 'null';
}

/** A value's JSON text; undefined for what JSON leaves out (undefined, a function, a symbol). */
function write(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object':
      if (value === null) return 'null';
      if (value instanceof JsonNumber) return value.text;
      if (Array.isArray(value)) return writeArray(value);
      if (value instanceof Date || value instanceof Boolean || value instanceof Number || value instanceof String) return JSON.stringify(value);
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return write((value as { toJSON(): unknown }).toJSON());
      return writeObject(value as Record<string, unknown>);
    default:
      return undefined;
  }
}

/** Text JSON.stringify would escape: a control character, a quote, a backslash or a surrogate (a lone one is escaped). */
function needsEscape(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}

function quote(text: string): string {
  return needsEscape(text) ? JSON.stringify(text) : `"${text}"`;
}

function writeArray(items: readonly unknown[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    out += write(items[i]) ?? 'null';
  }
  return `${out}]`;
}

function writeObject(object: Record<string, unknown>): string {
  let out = '{';
  for (const key of Object.keys(object)) {
    const text = write(object[key]);
    if (text === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${quote(key)}:${text}`;
  }
  return `${out}}`;
}
