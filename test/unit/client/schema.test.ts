import { readFileSync } from 'node:fs';
import { renderSchema, SCHEMA_FILE } from '../../../clients/typescript/scripts/generate-schema.js';

/** The client's types are generated from functions/system/openapi.json: the committed file must be the current rendering. */
describe("the client's generated types", () => {
  it('are the committed clients/typescript/src/schema.ts (run `npm run build:openapi` when this fails)', async () => {
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    const rendered = await renderSchema();
    expect(rendered).toContain("'/payments/': {");
    expect(rendered).toContain('export interface webhooks {');
    if (committed !== rendered) {
      throw new Error(
        'clients/typescript/src/schema.ts is stale: run `npm run build:openapi` (or `npm run generate --workspace=@gateway/client`) and commit it.',
      );
    }
    expect(committed).toBe(rendered);
  });
});
