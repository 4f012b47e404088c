import { parse, stringify } from 'lossless-json';
import { JsonNumber } from '../domain/json-number.js';

/**
 * Lossless JSON. `JSON.parse` on Node 20 turns `25.10` into the float 25.1 and loses the text; here every
 * number arrives as a JsonNumber holding its exact text, and JsonNumber (and bigint) values serialise
 * verbatim.
 */
export function parseJson(text: string): unknown {
  return parse(text, null, (value) => new JsonNumber(value));
}

const numberStringifiers = [{ test: (v: unknown) => v instanceof JsonNumber, stringify: (v: unknown) => (v as JsonNumber).text }];

export function toJson(value: unknown): string {
  return stringify(value, null, undefined, numberStringifiers) ?? 'null';
}
