import * as z from 'zod';
import { findCurrency, findNetwork } from '../domain/currencies.js';
import { WORDING } from '../domain/errors-wording.js';
import { JsonNumber } from '../domain/json-number.js';
import { MAX_SIGNIFICANT_DIGITS } from '../domain/money.js';
import { lazySchema } from '../domain/lazy-schema.js';

/**
 * Zod building blocks for inputs that arrive through lossless JSON or a query string. Amounts are
 * decimal TEXT end to end: a JSON number (`25.10`) or a string (`"25.10"`) both become "25.10". Like every schema of
 * an API Lambda's modules, the fixed ones are getters (`lazySchema`) built on first use, never while a module loads.
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
    .union([z.instanceof(JsonNumber), z.string()], { error: numberOrString })
    .transform((v, ctx) => {
      const text = typeof v === 'string' ? v.trim() : v.text;
      const maxScale = options.maxScale;
      if (!DECIMAL.test(text)) {
        ctx.addIssue({ code: 'custom', message: WORDING.format('decimal') });
        return z.NEVER;
      }
      const [whole = '', fraction = ''] = text.split('.');
      const digits = `${whole}${fraction.replace(/0+$/, '')}`.replace(/^0+/, '');
      if (maxScale !== undefined && fraction.replace(/0+$/, '').length > maxScale) {
        ctx.addIssue({ code: 'custom', message: WORDING.scale(maxScale) });
        return z.NEVER;
      }
      if (digits.length > MAX_SIGNIFICANT_DIGITS) {
        ctx.addIssue({ code: 'custom', message: WORDING.digits(MAX_SIGNIFICANT_DIGITS) });
        return z.NEVER;
      }
      if (options.positive === true && digits === '') {
        ctx.addIssue({ code: 'custom', message: WORDING.min(0, true) });
        return z.NEVER;
      }
      return text;
    })
    .meta({ type: 'string', format: 'decimal', description: 'Decimal amount (JSON number or string).' });

/** A non-negative decimal amount as its exact text; a JSON number or a string. */
export const decimalInput = lazySchema(() => decimal());

/** An integer from a JSON body (a JSON number or a numeric string). */
export const integerInput = lazySchema(() =>
  z
    .union([z.instanceof(JsonNumber), z.string(), z.number()], { error: numberOrString })
    .transform((v, ctx) => {
      const text = typeof v === 'string' ? v.trim() : String(v instanceof JsonNumber ? v.text : v);
      if (!/^-?\d{1,15}$/.test(text)) {
        ctx.addIssue({ code: 'custom', message: WORDING.format('integer') });
        return z.NEVER;
      }
      return Number(text);
    })
    .meta({ type: 'integer' }),
);

/** An ISO 8601 date (`2026-11-25`) or date-time in a query string. */
export const isoDate = lazySchema(() =>
  z
    .string()
    .trim()
    .refine((v) => /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), WORDING.format('date')),
);

/** A bound on `created_at` as an ISO instant: a date alone covers its whole UTC day (both bounds inclusive). */
export const dateBound = (value: string, end: boolean): string =>
  /^\d{4}-\d{2}-\d{2}$/.test(value) ? (end ? `${value}T23:59:59.999Z` : `${value}T00:00:00.000Z`) : new Date(value).toISOString();

/** A boolean in a query string: true/false/1/0. */
export const queryBoolean = lazySchema(() =>
  z
    .enum(['true', 'false', 'True', 'False', '1', '0'], { error: (issue) => (issue.input === undefined ? undefined : WORDING.wrongType('boolean')) })
    .transform((v) => v === 'true' || v === 'True' || v === '1')
    .meta({ type: 'boolean' }),
);

/** An integer in a query string within bounds. */
export const queryInteger = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, WORDING.format('integer'))
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .meta({ type: 'integer', minimum: min, maximum: max });

/**
 * The cross-field rules of the create bodies (payments, withdrawals), checked by zod in the same pass as every field
 * so one answer names every problem: an amount (`amount` or `price_amount`, not both), and a currency (`currency`, or
 * `pay_currency`, or `blockchain` with `token`) that says one thing (`currencyAgreement`).
 */
function amountAndCurrency(body: CurrencyFields & { readonly amount?: unknown; readonly price_amount?: unknown }, ctx: z.RefinementCtx): void {
  if (body.amount === undefined && body.price_amount === undefined) ctx.addIssue({ code: 'custom', path: ['amount'], message: WORDING.required });
  if (body.amount !== undefined && body.price_amount !== undefined) {
    // Either names the amount: with both, one would be ignored.
    ctx.addIssue({ code: 'custom', path: ['amount'], message: WORDING.contradicts('price_amount', 'give one of them.') });
    ctx.addIssue({ code: 'custom', path: ['price_amount'], message: WORDING.contradicts('amount', 'give one of them.') });
  }
  currencyAgreement(body, ctx);
  if (body.currency !== undefined || body.pay_currency !== undefined) return;
  if (body.blockchain === undefined && body.token === undefined) {
    ctx.addIssue({ code: 'custom', path: ['currency'], message: WORDING.requiredWhere('unless blockchain and token are both given') });
  } else if (body.blockchain === undefined) {
    ctx.addIssue({ code: 'custom', path: ['blockchain'], message: WORDING.requiredWhere('with token') });
  } else if (body.token === undefined) {
    ctx.addIssue({ code: 'custom', path: ['token'], message: WORDING.requiredWhere('with blockchain') });
  }
}

/** The fields a body may name its currency with (each body form of DESIGN section 10). */
interface CurrencyFields {
  readonly currency?: unknown;
  readonly pay_currency?: unknown;
  readonly blockchain?: unknown;
  readonly token?: unknown;
}

/**
 * A body that names its currency more than once says one thing: `currency` and `pay_currency` the same code, and
 * `blockchain` and `token`, where given beside a catalogue code, its network (any alias: TRX is TRON) and token.
 * Each disagreeing pair is refused with both fields named, rather than one of them silently winning. A code the
 * catalogue does not know is left to the use case (422 `invalid_currency`).
 */
function currencyAgreement(body: CurrencyFields, ctx: z.RefinementCtx): void {
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
  const disagree = (a: string, b: string, why: string) => {
    ctx.addIssue({ code: 'custom', path: [a], message: WORDING.contradicts(b, why) });
    ctx.addIssue({ code: 'custom', path: [b], message: WORDING.contradicts(a, why) });
  };
  const [currency, payCurrency] = [text(body.currency), text(body.pay_currency)];
  if (currency !== undefined && payCurrency !== undefined && currency !== payCurrency) {
    disagree('currency', 'pay_currency', `${currency} is not ${payCurrency}.`);
  }
  const field = currency !== undefined ? 'currency' : 'pay_currency';
  const found = findCurrency(currency ?? payCurrency ?? '');
  if (!found) return;
  const why = `${found.code} is ${found.token} on ${found.network}.`;
  const blockchain = text(body.blockchain);
  if (blockchain !== undefined && findNetwork(blockchain)?.code !== found.network) disagree(field, 'blockchain', why);
  const token = text(body.token);
  if (token !== undefined && token.toUpperCase() !== found.token) disagree(field, 'token', why);
}

/** Runs whenever the body is an object, even when other fields already failed (every problem at once). */
const onObjects = { when: (payload: { readonly value: unknown }) => typeof payload.value === 'object' && payload.value !== null };

/** A check built on its first use, as the schemas are (`lazySchema`). */
function lazyCheck<C>(build: () => C): () => C {
  let check: C | undefined;
  return () => (check ??= build());
}

export const checkAmountAndCurrency = lazyCheck(() => z.superRefine(amountAndCurrency, onObjects));

/** `currencyAgreement` alone, for bodies whose currency is optional (the withdrawal estimate, the minimum amount). */
export const checkCurrencyAgreement = lazyCheck(() => z.superRefine(currencyAgreement, onObjects));

/** One form of a list query with two (DESIGN section 10): its name and the parameters only it takes. */
export interface QueryForm {
  readonly name: string;
  readonly takes: readonly string[];
}

/**
 * A query with two forms: `chosen` is in force when one of its `by` parameters is given, else `otherwise`. A
 * parameter only the other form takes is refused (400, the parameter named, saying what to add or remove), never
 * silently ignored. The form parameters have no defaults (the check reads what was given).
 */
export const checkQueryForms = (chosen: QueryForm & { readonly by: readonly string[] }, otherwise: QueryForm) =>
  z.superRefine((query: Readonly<Record<string, unknown>>, ctx) => {
    const given = chosen.by.filter((key) => query[key] !== undefined);
    const misplaced = given.length > 0 ? otherwise.takes : chosen.takes;
    for (const key of misplaced) {
      if (query[key] === undefined) continue;
      const message = given.length > 0 ? WORDING.otherFormRemove(otherwise.name, given) : WORDING.otherFormAdd(chosen.name, chosen.by);
      ctx.addIssue({ code: 'custom', path: [key], message });
    }
  });

/* ------------------------------------------------------------------------------------------------ the wording */

/** A decimal or integer field's own answer to a value of the wrong type (it takes a JSON number or a string). */
function numberOrString(issue: z.core.$ZodRawIssue): string | undefined {
  return issue.input === undefined || issue.input === null ? undefined : WORDING.wrongType('number');
}
