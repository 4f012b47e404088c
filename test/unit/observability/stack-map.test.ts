import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { mappedStack } from '../../../shared/observability/stack-map.js';

/**
 * An error thrown in a bundle built as the Lambdas' are (minified ESM, a source map beside it without the
 * sources), in a Node process without `--enable-source-maps`: its stack names the bundle, and mapped it names the
 * source, line and column.
 */
let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stack-map-'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(
    join(dir, 'src', 'thrower.ts'),
    ['export function fail(reason: string): never {', '  const message: string = `failed: ${reason}`;', '  throw new Error(message);', '}', ''].join('\n'),
  );
  await build({
    entryPoints: [join(dir, 'src', 'thrower.ts')],
    outfile: join(dir, 'out', 'index.mjs'),
    bundle: true,
    format: 'esm',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    platform: 'node',
    logLevel: 'silent',
  });
  bundle = join(dir, 'out', 'index.mjs');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stackThrownIn = (file: string): string =>
  execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `try { (await import(${JSON.stringify(pathToFileURL(file).href)})).fail('x'); } catch (e) { process.stdout.write(e.stack); }`,
    ],
    {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    },
  );

describe('mappedStack', () => {
  it("reads a bundle's frames in the sources' terms through the map beside it", () => {
    const stack = stackThrownIn(bundle);
    expect(stack).toMatch(/^Error: failed: x\n/);
    expect(stack).toMatch(/out\/index\.mjs:1:\d+/);
    const mapped = mappedStack(stack);
    expect(mapped).toMatch(/\n {4}at [\w.]+ \(src\/thrower\.ts:3:9\)\n/);
    expect(mapped).not.toContain('index.mjs');
    // The frames of Node's own modules stay as they were.
    expect(mapped.split('\n').slice(2).join('\n')).toBe(stack.split('\n').slice(2).join('\n'));
  });

  it('leaves a frame as it is when its file has no map, or its position no mapping', () => {
    const unmapped = 'Error: x\n    at f (/nowhere/index.mjs:1:10)\n    at g (file:///nowhere/other.js:4:2)';
    expect(mappedStack(unmapped)).toBe(unmapped);
    const pastTheEnd = `Error: x\n    at f (${bundle}:99:1)`;
    expect(mappedStack(pastTheEnd)).toBe(pastTheEnd);
  });
});
