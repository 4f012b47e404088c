import type { ZodType } from 'zod';
import { ValidationError } from '../../domain/errors.js';

/**
 * Parses a use case's input with its schema; a failure is a ValidationError (400 `invalid_request`, each
 * field mapped to its messages), whether the input came from HTTP, SQS or the operator CLI.
 */
export function parseInput<T>(schema: ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const fields: Record<string, string[]> = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'non_field_errors';
    (fields[field] ??= []).push(issue.message);
  }
  throw new ValidationError(fields);
}
