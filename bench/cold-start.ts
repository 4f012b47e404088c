import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleBudget, lambdaEnvironment, synthApiBundles } from '../infra/cdk/api-bundles.js';
import type { ApiBundle } from '../infra/cdk/api-bundles.js';
import { median } from './round-trips.js';

/**
 * Cold start of the API Lambdas. Every API function is bundled as CDK ships it (infra/cdk/api-bundles.ts: the real
 * GatewayFunction bundling into a cloud assembly), then each bundle's `index.js` is loaded in fresh Node processes
 * as the Lambda runtime loads a CommonJS `.js` handler, with `require` (aws-lambda-nodejs-runtime-interface-client,
 * src/UserFunction.js), with the environment its Lambda has: the template's variables
 * (values CloudFormation resolves at deploy time replaced by placeholders of the same kind), `NODE_OPTIONS` as CDK
 * sets it (`--enable-source-maps`), and the variables the Lambda runtime sets. What is timed is the import alone:
 * from just before `import()` to its settling (the module graph loaded, linked and evaluated: the Lambda's init
 * phase for this handler), not Node's own start; beside it, the CPU time the process spent meanwhile (user + system,
 * `process.cpuUsage`), which other load on the machine disturbs far less than the elapsed time.
 *
 * The baseline is the import of what every API Lambda loads from the runtime anyway, `@aws-sdk/lib-dynamodb` and
 * `@aws-sdk/client-dynamodb`, by `import()` in processes started the same way (the goal's reference, fixed when the
 * bundles were ES modules importing them so). Beside it, the same two packages by `require`, as a CommonJS bundle
 * loads them: what is left over that is the bundle's own code. A round imports the baseline once, then every
 * bundle once, so load on the machine falls on all of them alike; a first round is discarded (it fills the page
 * cache). The assembly is written under node_modules/.cache so that the bundles' external `@aws-sdk/*` imports
 * resolve from the repository's node_modules, as they do from the runtime's on Lambda.
 */

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Issue 29 item 4: every API bundle's median import at most this many times the baseline's, elapsed and CPU. */
export const COLD_START_GOAL = 1.25;

export interface ColdStartRow {
  readonly name: string;
  /** Bytes of the minified `index.js`. */
  readonly bytes: number;
  readonly budget: number;
  /** Median import milliseconds. */
  readonly importMs: number;
  /** Median CPU milliseconds of the process during the import. */
  readonly cpuMs: number;
}

export interface ColdStartBench {
  readonly rows: readonly ColdStartRow[];
  /** Median import milliseconds of `@aws-sdk/lib-dynamodb` + `@aws-sdk/client-dynamodb` (by `import()`). */
  readonly baselineMs: number;
  readonly baselineCpuMs: number;
  /** The same two packages by `require`. */
  readonly requiredMs: number;
  readonly requiredCpuMs: number;
  readonly rounds: number;
  readonly node: string;
  readonly cpus: number;
}

interface Timing {
  readonly ms: number;
  readonly cpuMs: number;
}

/** Elapsed and CPU milliseconds of one load (an `import()` or a `require`) in a fresh process. */
function timeImport(imports: string, env: Record<string, string>): Timing {
  const script = [
    `import { createRequire } from 'node:module'; const require = createRequire(${JSON.stringify(`${ROOT}/`)});`,
    'const c0 = process.cpuUsage(); const t0 = performance.now();',
    imports,
    'const ms = performance.now() - t0; const c = process.cpuUsage(c0);',
    'process.stdout.write(JSON.stringify({ ms, cpuMs: (c.user + c.system) / 1000 }));',
  ].join(' ');
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const timing = JSON.parse(out) as Timing;
  if (!Number.isFinite(timing.ms) || !Number.isFinite(timing.cpuMs)) throw new Error(`Unexpected output of an import: ${out}`);
  return timing;
}

export async function benchColdStart(options: { readonly rounds?: number } = {}): Promise<ColdStartBench> {
  const rounds = options.rounds ?? 5;
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const outdir = mkdtempSync(join(cache, 'cold-start-'));
  try {
    const bundles = synthApiBundles(outdir);
    const baselineEnv = lambdaEnvironment(bundles[0] as ApiBundle, 'baseline');
    const baselineImports = "await import('@aws-sdk/lib-dynamodb'); await import('@aws-sdk/client-dynamodb');";
    const requiredImports = "require('@aws-sdk/lib-dynamodb'); require('@aws-sdk/client-dynamodb');";
    const bundleImports = (b: ApiBundle) => `require(${JSON.stringify(b.bundlePath)});`;
    const baseline: Timing[] = [];
    const required: Timing[] = [];
    const times = new Map<string, Timing[]>(bundles.map((b) => [b.name, []]));
    for (let round = -1; round < rounds; round++) {
      const base = timeImport(baselineImports, baselineEnv);
      if (round >= 0) baseline.push(base);
      const req = timeImport(requiredImports, baselineEnv);
      if (round >= 0) required.push(req);
      for (const b of bundles) {
        const timing = timeImport(bundleImports(b), lambdaEnvironment(b));
        if (round >= 0) times.get(b.name)?.push(timing);
      }
    }
    const rows = bundles.map((b) => {
      const t = times.get(b.name) ?? [];
      return { name: b.name, bytes: b.bytes, budget: bundleBudget(b.name), importMs: median(t.map((x) => x.ms)), cpuMs: median(t.map((x) => x.cpuMs)) };
    });
    return {
      rows,
      baselineMs: median(baseline.map((x) => x.ms)),
      baselineCpuMs: median(baseline.map((x) => x.cpuMs)),
      requiredMs: median(required.map((x) => x.ms)),
      requiredCpuMs: median(required.map((x) => x.cpuMs)),
      rounds,
      node: process.version,
      cpus: cpus().length,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

export interface ColdStartVerdict {
  /** The bundle whose median import takes the most times the baseline's elapsed time, and that ratio. */
  readonly slowest: { readonly name: string; readonly ratio: number };
  /** The same for CPU time. */
  readonly slowestCpu: { readonly name: string; readonly ratio: number };
  /** Both ratios within `COLD_START_GOAL`. */
  readonly met: boolean;
}

/** The slowest bundle against the baseline, by elapsed and by CPU time, and whether both hold the goal. */
export function coldStartVerdict(bench: ColdStartBench): ColdStartVerdict {
  const worst = (ratio: (r: ColdStartRow) => number) =>
    bench.rows.reduce((w, r) => (ratio(r) > w.ratio ? { name: r.name, ratio: ratio(r) } : w), { name: '-', ratio: 0 });
  const slowest = worst((r) => r.importMs / bench.baselineMs);
  const slowestCpu = worst((r) => r.cpuMs / bench.baselineCpuMs);
  return { slowest, slowestCpu, met: slowest.ratio <= COLD_START_GOAL && slowestCpu.ratio <= COLD_START_GOAL };
}
