/**
 * Writes the OpenAPI document (scripts/openapi-document.ts) to functions/system/openapi.json, which the
 * system Lambda serves. Run `npm run build:openapi` after changing a route or a schema and commit the file;
 * test/unit/http/openapi-document.test.ts fails while the committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderOpenApi } from './openapi-document.js';

export const OPENAPI_FILE = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'functions', 'system', 'openapi.json');

writeFileSync(OPENAPI_FILE, renderOpenApi());
console.log(`wrote ${OPENAPI_FILE}`);
