/**
 * Writes the OpenAPI document (scripts/openapi-document.ts) to functions/system/openapi.json, which the
 * system Lambda serves. Run `npm run build:openapi` after changing a route or a schema and commit the file;
 * test/unit/http/openapi-document.test.ts fails while the committed file is stale. Also writes the v1.0 endpoint
 * list the v0.9 Lambda names successors from (scripts/v1-endpoints.ts), and the TypeScript client's types generated
 * from the document (clients/typescript/scripts/generate-schema.ts).
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderOpenApi } from './openapi-document.js';
import { renderV1Endpoints, V1_ENDPOINTS_FILE } from './v1-endpoints.js';
import { renderSchema, SCHEMA_FILE } from '../clients/typescript/scripts/generate-schema.js';

export const OPENAPI_FILE = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'functions', 'system', 'openapi.json');

writeFileSync(OPENAPI_FILE, renderOpenApi());
console.log(`wrote ${OPENAPI_FILE}`);
writeFileSync(V1_ENDPOINTS_FILE, renderV1Endpoints());
console.log(`wrote ${V1_ENDPOINTS_FILE}`);
writeFileSync(SCHEMA_FILE, await renderSchema());
console.log(`wrote ${SCHEMA_FILE}`);
