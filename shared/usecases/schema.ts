import * as z from 'zod';
import { JsonNumber } from '../domain/json-number.js';
import { MAX_SIGNIFICANT_DIGITS } from '../domain/money.js';

/**
 * Zod building blocks for inputs that arrive through lossless JSON or a query string. Amounts are
 * decimal TEXT end to end: a JSON number (`25.10`) or a string (`"25.10"`) both become "25.10".
 */

const DECIMAL = /^\d+(\.\d+)?$/;

/**
 * A non-negative decimal amount as its exact text; a JSON number or a string (body or query string). Every decimal
 * input goes through here, so each is refused the same way (400 with the field named): not plain decimal text, more
 * than `maxScale` fraction digits (when given), more significant digits than a stored amount holds, or zero where
 * `positive`.
 */
export const decimal = (options: { readonly maxScale?: number; readonly positive?: boolean } = {}) =>
  z
    .union([z.instanceof(JsonNumber), z.string()])
    .transform((v, ctx) => {
      const text = typeof v === 'string' ? v.trim() : v.text;
      const maxScale = options.maxScale;
      if (!DECIMAL.test(text)) {
        ctx.addIssue({ code: 'custom', message: 'Enter a valid decimal number.' });
        return z.NEVER;
      }
      const [whole = '', fraction = ''] = text.split('.');
      const digits = `${whole}${fraction.replace(/0+$/, '')}`.replace(/^0+/, '');
      if (maxScale !== undefined && fraction.replace(/0+$/, '').length > maxScale) {
        ctx.addIssue({ code: 'custom', message: `Must have at most ${maxScale} decimal places.` });
        return z.NEVER;
      }
      if (digits.length > MAX_SIGNIFICANT_DIGITS) {
        ctx.addIssue({ code: 'custom', message: `Must have at most ${MAX_SIGNIFICANT_DIGITS} significant digits.` });
        return z.NEVER;
      }
      if (options.positive === true && digits === '') {
        ctx.addIssue({ code: 'custom', message: 'Must be greater than zero.' });
        return z.NEVER;
      }
      return text;
    })
    .meta({ type: 'string', format: 'decimal', description: 'Decimal amount (JSON number or string).' });

/** A non-negative decimal amount as its exact text; a JSON number or a string. */
export const decimalInput = decimal();

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

/** An ISO 8601 date (`2026-11-25`) or date-time in a query string. */
export const isoDate = z
  .string()
  .trim()
  .refine((v) => /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), 'Enter an ISO 8601 date or date-time.');

/** A bound on `created_at` as an ISO instant: a date alone covers its whole UTC day (both bounds inclusive). */
export const dateBound = (value: string, end: boolean): string =>
  /^\d{4}-\d{2}-\d{2}$/.test(value) ? (end ? `${value}T23:59:59.999Z` : `${value}T00:00:00.000Z`) : new Date(value).toISOString();

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

/**
 * The cross-field rules of the create bodies (payments, withdrawals), checked by zod in the same pass as every field
 * so one answer names every problem: an amount (`amount` or `price_amount`), and a currency (`currency`, or
 * `pay_currency` where `alsoPayCurrency`, or `blockchain` with `token`).
 */
function amountAndCurrency(
  body: {
    readonly amount?: unknown;
    readonly price_amount?: unknown;
    readonly currency?: unknown;
    readonly pay_currency?: unknown;
    readonly blockchain?: unknown;
    readonly token?: unknown;
  },
  ctx: z.RefinementCtx,
): void {
  if (body.amount === undefined && body.price_amount === undefined) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'This field is required.' });
  if (body.currency !== undefined || body.pay_currency !== undefined) return;
  if (body.blockchain === undefined && body.token === undefined) {
    ctx.addIssue({ code: 'custom', path: ['currency'], message: 'This field is required unless blockchain and token are both given.' });
  } else if (body.blockchain === undefined) {
    ctx.addIssue({ code: 'custom', path: ['blockchain'], message: 'This field is required with token.' });
  } else if (body.token === undefined) {
    ctx.addIssue({ code: 'custom', path: ['token'], message: 'This field is required with blockchain.' });
  }
}

/** `checkAmountAndCurrency` as a check that runs even when other fields already failed (every problem at once). */
export const checkAmountAndCurrency = z.superRefine(amountAndCurrency, {
  when: (payload) => typeof payload.value === 'object' && payload.value !== null,
});
