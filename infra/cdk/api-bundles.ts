import { App } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import { readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_FUNCTIONS, QUEUES } from '../definition.js';
import type { ApiFunction } from '../definition.js';
import { BUNDLE } from './constructs/gateway-function.js';
import { GatewayStack } from './gateway-stack.js';

/**
 * What CDK ships for each API Lambda: its functions synthesised alone (no workers) through the real GatewayFunction
 * bundling (local esbuild, the options of infra/cdk/constructs/gateway-function.ts), each asset's `index.js` read
 * from the cloud assembly. The cold-start budget test (test/infra/api-bundles.test.ts) and figure (bench/cold-start.ts)
 * both read it.
 */

/**
 * Most bytes of each API function's minified `index.js`: 60 KB for the two that need nothing (`$default`, v0.9),
 * 300 KB for the others, but 310 KB for the three that read every chain's rules: withdrawals (address codecs of every
 * family, pricing, the tenant's USD limits), refunds (the same address codecs and payout pricing, and the payment's
 * transitions: a refund settles a payment left partially paid) and custody-sync (three chains' readers); each of them holds, like every
 * API bundle, the one error wording and the closed-query check of every request. The custody group is served by three Lambdas so that custody, which serves accounts,
 * deposit addresses with their QR codes, balances and transfers, holds no chain client: its sync (custody-sync, which
 * reads three chains: EVM JSON-RPC, TronGrid, Solana with the Ed25519 curve of its token accounts) and its
 * withdrawals (custody-withdrawals) are Lambdas of their own. So is the public refund claim page (refund-claims): the
 * merchant's refund endpoints start without its pages; and the payment link page (payment-link-pages), beside the
 * merchant's payment-links endpoints. Subscriptions (issue 30) also get 310 KB: each period opens an ordinary payment
 * through the payment creation use case (its pricing, every family's deposit address), beside the plan and
 * subscription schemas; 320 KB since pull subscriptions: a mandate's id, call data and typed data encoded without a
 * chain client (shared/chain/evm/mandate.ts) and the hot wallet's address read from its KMS key.
 */
export function bundleBudget(name: string): number {
  if (name === 'not-found' || name === 'legacy') return 60_000;
  if (name === 'subscriptions') return 320_000;
  return name === 'withdrawals' || name === 'refunds' || name === 'custody-sync' ? 310_000 : 300_000;
}

/** Packages no API bundle may hold: chain clients and signing libraries are the workers' (item 1 of issue 16). */
export const API_FORBIDDEN_PACKAGES = ['ethers', 'tronweb', '@solana/'] as const;

export interface ApiBundle {
  readonly name: string;
  /** The asset directory: `index.js`, its source map, and the definition's `files`. */
  readonly dir: string;
  readonly bundlePath: string;
  /** Bytes of `index.js`. */
  readonly bytes: number;
  /** The bundle's inputs, from its source map, relative to the repository root (`node_modules/zod/...`, `shared/http/...`). */
  readonly sources: readonly string[];
  /** The function's environment in the template; values CloudFormation resolves at deploy time are left as they are there. */
  readonly environment: Readonly<Record<string, unknown>>;
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CDK_CONTEXT = (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }).context;

/** Bundles `functions` (default: every API function) into `outdir`, a cloud assembly; minutes at most, seconds usually. */
export function synthApiBundles(outdir: string, functions: readonly ApiFunction[] = API_FUNCTIONS): ApiBundle[] {
  const app = new App({ outdir, context: CDK_CONTEXT });
  const stack = new GatewayStack(app, 'ApiBundles', { stage: 'bundles', definition: { api: functions, workers: [], queues: QUEUES } });
  const template = app.synth().getStackByName(stack.stackName).template as {
    Resources: Record<string, { Properties?: { Code?: { S3Key?: string }; Environment?: { Variables?: Record<string, unknown> } } }>;
  };
  return functions.map(({ name }) => {
    const fn = stack.functions.get(name);
    if (!fn) throw new Error(`No function ${name} in the stack`);
    const resource = template.Resources[stack.getLogicalId(fn.node.defaultChild as CfnElement)];
    const key = resource?.Properties?.Code?.S3Key;
    if (!key) throw new Error(`No code asset for ${name}`);
    const dir = join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
    const bundlePath = join(dir, BUNDLE.file);
    const map = JSON.parse(readFileSync(`${bundlePath}.map`, 'utf8')) as { sources: string[] };
    return {
      name,
      dir,
      bundlePath,
      bytes: statSync(bundlePath).size,
      // esbuild wrote the map in a staging directory beside the asset's, so its relative paths resolve from the asset's.
      sources: map.sources.map((source) => relative(REPO_ROOT, resolve(dir, source))),
      environment: resource.Properties?.Environment?.Variables ?? {},
    };
  });
}

/** A stand-in for a value CloudFormation fills in at deploy time (a table name, a key id, a queue or API URL). */
const placeholder = (name: string): string =>
  /URL/.test(name) ? `https://${name.toLowerCase().replace(/_/g, '-')}.bench.invalid/` : `bench-${name.toLowerCase().replace(/_/g, '-')}`;

/**
 * What a Lambda's process sees: the function's variables, and those the Node.js 24 runtime sets. The cold-start bench
 * imports each bundle with it, and so does the bundle test that counts what a bundle builds at load.
 */
export function lambdaEnvironment(bundle: ApiBundle, name = bundle.name): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    LAMBDA_TASK_ROOT: bundle.dir,
  };
  for (const [key, value] of Object.entries(bundle.environment)) env[key] = typeof value === 'string' ? value : placeholder(key);
  return env;
}
