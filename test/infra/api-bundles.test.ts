import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { API_FORBIDDEN_PACKAGES, bundleBudget, lambdaEnvironment, synthApiBundles } from '../../infra/cdk/api-bundles.js';
import { REFERENCE_BUNDLE_FILE } from '../../functions/system/reference-bundle.js';
import { API_FUNCTIONS } from '../../infra/definition.js';

/**
 * Cold start (issue 16, item 1): every API function bundled as CDK ships it (the real GatewayFunction bundling, local
 * esbuild), each `index.js` within its byte budget and holding only what its routes use. Sizes are deterministic.
 */
// Under node_modules/.cache, as in the bench: the bundles' external `@aws-sdk/*` imports resolve from the repository's packages.
mkdirSync(join('node_modules', '.cache'), { recursive: true });
const outdir = mkdtempSync(join('node_modules', '.cache', 'gateway-api-bundles-'));
const bundles = synthApiBundles(outdir);
const byName = new Map(bundles.map((b) => [b.name, b]));

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

test('bundles every API function of the definition', () => {
  expect(bundles.map((b) => b.name)).toEqual(API_FUNCTIONS.map((f) => f.name));
});

test.each(bundles.map((b) => [b.name, b.bytes, bundleBudget(b.name)] as const))('%s: %d bytes, within its budget of %d', (_name, bytes, budget) => {
  expect(bytes).toBeLessThanOrEqual(budget);
});

test('no API bundle holds a chain client, the OpenAPI generator, another group or zod locales other than English', () => {
  for (const b of bundles) {
    const packages = b.sources.filter((s) => s.startsWith('node_modules/'));
    const offending = packages.filter(
      (s) =>
        API_FORBIDDEN_PACKAGES.some((p) => s.startsWith(`node_modules/${p}`) || s.includes(`/node_modules/${p}`)) ||
        s.startsWith('node_modules/@asteasolutions/zod-to-openapi/') ||
        (s.startsWith('node_modules/zod/v4/locales/') && s !== 'node_modules/zod/v4/locales/en.js'),
    );
    const ownFolder = `functions/${b.name}/`;
    const otherFunctions = b.sources.filter((s) => s.startsWith('functions/') && !s.startsWith(ownFolder));
    expect({ name: b.name, offending, otherFunctions }).toEqual({ name: b.name, offending: [], otherFunctions: [] });
  }
});

test('custody holds no chain client, no withdrawal pricing and no Ed25519 curve: the sync and withdrawals are Lambdas of their own', () => {
  const custody = byName.get('custody');
  expect(custody).toBeDefined();
  const chainWork = (custody?.sources ?? []).filter(
    (s) =>
      /^shared\/chain\/(evm\/scanner|tron\/(grid|scanner)|solana\/(rpc|deposits))\.ts$/.test(s) ||
      /^shared\/usecases\/custody\/(sync|withdraw|scan-deposits|solana-deposits)\.ts$/.test(s) ||
      s.startsWith('node_modules/@noble/curves/'),
  );
  expect(chainWork).toEqual([]);
  expect(byName.get('custody-sync')?.sources).toContain('shared/usecases/custody/sync.ts');
  expect(byName.get('custody-withdrawals')?.sources).toContain('shared/usecases/custody/withdraw.ts');
});

test("custody-sync holds no deposit addresses' use case and no QR encoder: it reports a provider's failure with the error alone", () => {
  const sources = byName.get('custody-sync')?.sources ?? [];
  expect(sources).toContain('shared/usecases/custody/provider-error.ts');
  const addressesAndQr = sources.filter(
    (s) => ['shared/usecases/custody/addresses.ts', 'shared/usecases/qr.ts'].includes(s) || s.includes('node_modules/qrcode/'),
  );
  expect(addressesAndQr).toEqual([]);
});

test("at load, a bundle loads from the runtime no SDK client but DynamoDB's: the others are loaded on first use", () => {
  // Each bundle required as the runtime requires it, then the SDK clients in the module cache.
  const script = (path: string) =>
    `require(${JSON.stringify(path)}); process.stdout.write(JSON.stringify([...new Set(Object.keys(require.cache).map((f) => /node_modules\\/@aws-sdk\\/(client-[\\w-]+)\\//.exec(f)?.[1]).filter(Boolean))].sort()));`;
  const loaded = bundles.map((b) => ({
    name: b.name,
    clients: JSON.parse(
      execFileSync(process.execPath, ['--input-type=commonjs', '-e', script(resolve(b.bundlePath))], { env: lambdaEnvironment(b), encoding: 'utf8' }),
    ) as string[],
  }));
  // The two that read no table (legacy v0.9 and the not-found route) load no client at all.
  expect(loaded.filter((b) => !b.clients.includes('client-dynamodb')).map((b) => b.name)).toEqual(['legacy', 'not-found']);
  expect(loaded.filter((b) => b.clients.some((c) => c !== 'client-dynamodb'))).toEqual([]);
});

test('no API bundle holds the X-Ray SDK: Lambda traces the API functions, Powertools Tracer only the workers', () => {
  const withTracer = bundles.filter((b) => b.sources.some((s) => s.includes('node_modules/aws-xray-sdk-core/') || s === 'shared/observability/tracing.ts'));
  expect(withTracer.map((b) => b.name)).toEqual([]);
});

test('the OpenAPI document ships beside the system bundle, read when first asked, not inside it', () => {
  const system = byName.get('system');
  expect(system && existsSync(join(system.dir, 'openapi.json'))).toBe(true);
  expect(system?.sources).not.toContain('functions/system/openapi.json');
  expect(readFileSync(join(system?.dir ?? '', 'openapi.json'), 'utf8')).toBe(readFileSync('functions/system/openapi.json', 'utf8'));
});

test("the docs page's script (Scalar's API reference) ships beside the system bundle under its own name, not inside it", () => {
  const system = byName.get('system');
  const shipped = join(system?.dir ?? '', 'standalone.js');
  expect(existsSync(shipped)).toBe(true);
  expect(readFileSync(shipped, 'utf8')).toBe(readFileSync(REFERENCE_BUNDLE_FILE, 'utf8'));
  expect((system?.sources ?? []).filter((s) => s.includes('@scalar/'))).toEqual([]);
});

test('no API bundle builds a zod object while it loads: every schema is built on its first use (lazySchema)', () => {
  // zod hands each object it builds (a schema or a check) to the post-processor of its global configuration.
  const script = (path: string) =>
    `let built = 0; globalThis.__zod_globalConfig = { postProcessor: () => { built += 1; } }; require(${JSON.stringify(path)}); process.stdout.write(String(built));`;
  const built = bundles.map((b) => {
    const out = execFileSync(process.execPath, ['--input-type=commonjs', '-e', script(resolve(b.bundlePath))], {
      env: lambdaEnvironment(b),
      encoding: 'utf8',
    });
    return { name: b.name, built: Number(out) };
  });
  expect(built.length).toBeGreaterThan(10);
  expect(built.filter((b) => b.built !== 0)).toEqual([]);
});
