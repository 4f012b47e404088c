/**
 * A small, strict RFC 4180 reader for tests: records end with CRLF; a field is either plain (no comma, quote, CR or
 * LF) or enclosed in double quotes with inner quotes doubled. Anything else (a bare quote, a lone CR or LF outside
 * quotes, text after a closing quote, an unterminated quote) throws, so a writer that under-quotes is caught.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let afterQuote = false;
  let i = 0;
  const endField = () => {
    record.push(field);
    field = '';
    afterQuote = false;
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        afterQuote = true;
        i += 1;
      } else {
        field += c;
        i += 1;
      }
      continue;
    }
    if (c === ',') {
      endField();
      i += 1;
    } else if (c === '\r' && text[i + 1] === '\n') {
      endField();
      records.push(record);
      record = [];
      i += 2;
    } else if (afterQuote) {
      throw new SyntaxError(`text after a closing quote at ${i}`);
    } else if (c === '"') {
      if (field !== '') throw new SyntaxError(`a quote inside a plain field at ${i}`);
      quoted = true;
      i += 1;
    } else if (c === '\r' || c === '\n') {
      throw new SyntaxError(`a line break outside quotes at ${i}`);
    } else {
      field += c;
      i += 1;
    }
  }
  if (quoted) throw new SyntaxError('an unterminated quoted field');
  if (field !== '' || afterQuote || record.length > 0) throw new SyntaxError('the last record does not end with CRLF');
  return records;
}
