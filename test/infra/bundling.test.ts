import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QUEUES } from '../../infra/definition.js';
import { GatewayStack } from '../../infra/cdk/gateway-stack.js';
import { BUNDLE } from '../../infra/cdk/constructs/gateway-function.js';
import { CDK_CONTEXT } from './support.js';

/** One real bundle (local esbuild, no Docker) of a fixture, to prove the bundling options produce a working CommonJS Lambda. */
const outdir = mkdtempSync(join(tmpdir(), 'gateway-cdk-bundle-'));
const app = new App({ outdir, context: CDK_CONTEXT });
const stack = new GatewayStack(app, 'BundlingTest', {
  stage: 'test',
  definition: { api: [{ name: 'fixture', entry: 'test/infra/fixtures/handler.ts', routes: ['$default'] }], workers: [], queues: QUEUES },
});
const template = Template.fromStack(stack);
const code = Object.values(template.findResources('AWS::Lambda::Function'))[0]?.Properties?.Code as { S3Key: string };
const assetDir = join(outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
const bundlePath = join(assetDir, 'index.js');

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

test('emits a minified CommonJS bundle with a source map', () => {
  expect(existsSync(bundlePath)).toBe(true);
  expect(existsSync(`${bundlePath}.map`)).toBe(true);
  const bundle = readFileSync(bundlePath, 'utf8');
  expect(bundle.startsWith(BUNDLE.banner)).toBe(true);
  expect(bundle).toMatch(/module\.exports\s*=/);
  expect(bundle).not.toMatch(/\bexport\s*\{|\bimport\s*\{/);
  expect(bundle.trimEnd().split('\n').length).toBeLessThan(10);
});

test('leaves the AWS SDK to the runtime, required rather than imported', () => {
  const bundle = readFileSync(bundlePath, 'utf8');
  expect(bundle).toMatch(/require\("@aws-sdk\/client-sqs"\)/);
  expect(bundle).not.toContain('import("@aws-sdk');
  expect(bundle.length).toBeLessThan(10_000);
});

test('the bundle loads with require, as the runtime loads a .js handler, and knows its own URL', () => {
  const script = `const m = require(${JSON.stringify(bundlePath)}); m.handler().then((r) => process.stdout.write(JSON.stringify({ ...r, url: m.url })));`;
  const output = execFileSync(process.execPath, ['--input-type=commonjs', '-e', script], { encoding: 'utf8' });
  expect(JSON.parse(output)).toEqual({
    statusCode: 200,
    body: createHash('sha256').update('fixture').digest('hex'),
    url: `file://${bundlePath}`,
  });
});
