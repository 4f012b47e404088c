import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * The one binary form of what the table stores compressed (an aggregate's `state`, an outbox item's `events`): a
 * format byte, then the raw DEFLATE of the value's JSON text.
 * - format 0: plain raw DEFLATE;
 * - format 1: raw DEFLATE against a preset dictionary (an aggregate type's: the field names and values every item
 *   of the type repeats). A dictionary can never change once items were written with it: a new one takes a new
 *   format byte, and the old stays readable.
 */
const PLAIN = 0;
const WITH_DICTIONARY = 1;

/** JSON text as stored: the format byte, then the text deflated (against `dictionary`, when one is given). */
export function packText(json: string, dictionary?: Uint8Array): Buffer {
  const deflated = deflateRawSync(Buffer.from(json, 'utf8'), dictionary ? { level: 9, dictionary } : { level: 9 });
  const out = Buffer.allocUnsafe(deflated.length + 1);
  out[0] = dictionary ? WITH_DICTIONARY : PLAIN;
  deflated.copy(out, 1);
  return out;
}

/** The JSON text of a packed value (`dictionary`: the one it was packed against, for format 1). */
export function unpackText(packed: Uint8Array, dictionary?: Uint8Array): string {
  const format = packed[0];
  const body = packed.subarray(1);
  if (format === PLAIN) return inflateRawSync(body).toString('utf8');
  if (format === WITH_DICTIONARY && dictionary) return inflateRawSync(body, { dictionary }).toString('utf8');
  throw new TypeError(`Unknown packed format ${String(format)}${format === WITH_DICTIONARY ? ' (no dictionary given)' : ''}`);
}
