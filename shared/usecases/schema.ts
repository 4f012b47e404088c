import { z } from 'zod';
import { JsonNumber } from '../domain/json-number.js';

/**
 * Zod building blocks for inputs that arrive through lossless JSON or a query string. Amounts are
 * decimal TEXT end to end: a JSON number (`25.10`) or a string (`"25.10"`) both become "25.10".
 */

const DECIMAL = /^\d+(\.\d+)?$/;

/** A non-negative decimal amount as its exact text; a JSON number or a string. */
export const decimalInput = z
  .union([z.instanceof(JsonNumber), z.string()])
  .transform((v, ctx) => {
    const text = typeof v === 'string' ? v.trim() : v.text;
    if (!DECIMAL.test(text)) {
      ctx.addIssue({ code: 'custom', message: 'Enter a valid decimal number.' });
      return z.NEVER;
    }
    return text;
  })
  .meta({ type: 'string', format: 'decimal', description: 'Decimal amount (JSON number or string).' });

/** An integer from a JSON body (a JSON number or a numeric string). */
export const integerInput = z
  .union([z.instanceof(JsonNumber), z.string(), z.number()])
  .transform((v, ctx) => {
    const text = typeof v === 'string' ? v.trim() : String(v instanceof JsonNumber ? v.text : v);
    if (!/^-?\d{1,15}$/.test(text)) {
      ctx.addIssue({ code: 'custom', message: 'Enter a whole number.' });
      return z.NEVER;
    }
    return Number(text);
  })
  .meta({ type: 'integer' });

/** A boolean in a query string: true/false/1/0. */
export const queryBoolean = z
  .enum(['true', 'false', 'True', 'False', '1', '0'])
  .transform((v) => v === 'true' || v === 'True' || v === '1')
  .meta({ type: 'boolean' });

/** An integer in a query string within bounds. */
export const queryInteger = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'Enter a whole number.')
    .transform(Number)
    .pipe(z.number().int().min(min, `Must be at least ${min}.`).max(max, `Must be at most ${max}.`))
    .meta({ type: 'integer', minimum: min, maximum: max });
