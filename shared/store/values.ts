import { NumberValue } from '@aws-sdk/lib-dynamodb';

/**
 * Conversions from what the document client returns (numbers wrapped as NumberValue) to exact values.
 */

/** A stored number as its exact decimal text. */
export function decimalText(value: unknown): string {
  if (value instanceof NumberValue) return value.toString();
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  throw new TypeError(`Expected a stored number, got ${typeof value}`);
}

/** A stored counter or timestamp (always a safe integer). */
export function integer(value: unknown): number {
  if (value === undefined || value === null) return 0;
  const n = Number(decimalText(value));
  if (!Number.isSafeInteger(n)) throw new TypeError(`Expected a safe integer, got ${decimalText(value)}`);
  return n;
}

/** A decimal string written as an exact DynamoDB Number. */
export function storedDecimal(text: string): NumberValue {
  return NumberValue.from(text);
}
