import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';

/**
 * src/schema.ts: the types of functions/system/openapi.json, by openapi-typescript, in the repository's Prettier
 * style (the document gives every error answer its body: the envelope, or OAuth's), so `error` is typed on every
 * status. `npm run build:openapi` (or `npm run generate --workspace=@gateway/client`) writes it;
 * test/unit/client/schema.test.ts fails while the committed file differs from what this renders.
 */
const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_FILE = resolve(PACKAGE, 'src/schema.ts');
export const OPENAPI_FILE = resolve(PACKAGE, '../../functions/system/openapi.json');

export async function renderSchema(): Promise<string> {
  const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenAPI3;
  const text = `${COMMENT_HEADER}${astToString(await openapiTS(document, { silent: true }))}`;
  return format(text, { ...(await resolveConfig(SCHEMA_FILE)), filepath: SCHEMA_FILE });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  writeFileSync(SCHEMA_FILE, await renderSchema());
  console.log(`wrote ${SCHEMA_FILE}`);
}
