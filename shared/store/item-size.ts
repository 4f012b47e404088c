/**
 * An item's size as DynamoDB counts it for capacity units: its attribute names and values (numbers by their
 * digits, close enough for the items the tests and the cost bench count). Tests and benchmarks only.
 */
function valueBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return Math.ceil(String(value).replace(/^-|\./g, '').length / 2) + 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((n: number, v) => n + valueBytes(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce((n: number, v) => n + 1 + valueBytes(v), 0);
  if (typeof value === 'object') {
    // A NumberValue, as the document client reads numbers back wrapped.
    if ('value' in value && Object.keys(value).length === 1 && typeof value.value === 'string') return valueBytes(Number(value.value));
    return 3 + Object.entries(value).reduce((n, [k, v]) => n + 1 + Buffer.byteLength(k) + valueBytes(v), 0);
  }
  return 8;
}

export const itemSize = (item: Record<string, unknown>): number =>
  Object.entries(item).reduce((n, [name, value]) => n + Buffer.byteLength(name) + valueBytes(value), 0);
