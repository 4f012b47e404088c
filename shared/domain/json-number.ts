/**
 * A JSON number kept as its exact text. Request bodies are parsed so that every number arrives as one of
 * these (`25.10` stays "25.10"), and answers serialise it back verbatim. Nothing here is ever a float.
 */
export class JsonNumber {
  readonly text: string;

  constructor(text: string) {
    if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text)) throw new TypeError(`Not a JSON number: ${text}`);
    this.text = text;
  }

  /** A JSON number for a decimal string or bigint that the interface says is a number. */
  static of(value: string | bigint): JsonNumber {
    return new JsonNumber(typeof value === 'bigint' ? value.toString() : value);
  }

  toString(): string {
    return this.text;
  }

  toJSON(): string {
    return this.text;
  }
}
