/**
 * What the cost bench (bench/cost.ts) measures beside the tallies: a worker's memory, run from its bundle in a fresh
 * Node process.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { AWS_SDK_IN_RUNTIME, BUNDLE, ESBUILD_TARGET } from '../infra/cdk/constructs/gateway-function.js';
import { WORKER_FUNCTIONS } from '../infra/definition.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** JSON as Lambda delivers an event: binary attribute values (a stream image's) as base64 text. */
function lambdaJson(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  const buffer = value as { type?: unknown; data?: unknown } | null;
  if (buffer && typeof buffer === 'object' && buffer.type === 'Buffer' && Array.isArray(buffer.data))
    return Buffer.from(buffer.data as number[]).toString('base64');
  return value;
}

/**
 * A worker bundled as CDK bundles it (infra/cdk/constructs/gateway-function.ts: minified CommonJS for the runtime's Node.js,
 * the SDK clients left to the runtime), under node_modules/.cache so that those resolve from the repository's.
 */
async function workerBundle(name: string, outdir: string): Promise<string> {
  const w = WORKER_FUNCTIONS.find((f) => f.name === name);
  if (!w) throw new Error(`no worker ${name}`);
  const outfile = join(outdir, name, BUNDLE.file);
  await build({
    entryPoints: [join(ROOT, w.entry)],
    bundle: true,
    platform: 'node',
    format: BUNDLE.format,
    target: ESBUILD_TARGET,
    minify: true,
    mainFields: ['module', 'main'],
    banner: { js: BUNDLE.banner },
    define: { ...BUNDLE.define },
    supported: { ...BUNDLE.supported },
    external: [...AWS_SDK_IN_RUNTIME],
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

/**
 * A worker's run in a fresh Node process (the stack's environment, inherited), from its bundle (`workerBundle`): a
 * scheduled worker's idle run as its schedule invokes it, or an event worker given `event`. Its peak resident set
 * (VmHWM of /proc/self/status: Linux), heap used after the run, and the records the handler reported failed.
 */
export async function workerMemory(
  name: string,
  remainingMs: number,
  bundles: string,
  event?: unknown,
): Promise<{ peakRssMb: number; heapUsedMb: number; failures: number }> {
  const invocation = event === undefined ? { time: new Date().toISOString() } : event;
  const bundle = await workerBundle(name, bundles);
  const code = [
    "const { createRequire } = await import('node:module');",
    `const { handler } = createRequire(${JSON.stringify(bundle)})(${JSON.stringify(bundle)});`,
    'const startedAt = Date.now();',
    `const result = await handler(${JSON.stringify(invocation, lambdaJson)}, { awsRequestId: 'bench-memory', functionName: ${JSON.stringify(name)}, getRemainingTimeInMillis: () => ${remainingMs} - (Date.now() - startedAt) });`,
    // VmHWM: the peak resident set of this process's own memory since its exec. `resourceUsage().maxRSS` is not: Linux
    // carries the parent's high-water mark over fork and exec, so it told the bench's own size, whatever the worker.
    "const { readFileSync } = await import('node:fs');",
    "const hwm = /^VmHWM:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));",
    'const out = { peakRssMb: Number(hwm?.[1] ?? Number.NaN) / 1024, heapUsedMb: process.memoryUsage().heapUsed / 1024 / 1024, failures: result?.batchItemFailures?.length ?? 0 };',
    "process.stderr.write('\\nMEMORY ' + JSON.stringify(out) + '\\n');",
    'process.exit(0);',
  ].join('\n');
  // Asynchronous: the stack's stand-ins (SQS, KMS, the chain APIs) answer from this process's event loop.
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    cwd: ROOT,
    env: { ...process.env, LOCAL_METRICS: 'false' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve, reject) => child.on('error', reject).on('close', resolve));
  const line = stderr.split('\n').find((l) => l.startsWith('MEMORY '));
  if (!line) throw new Error(`no memory figure from ${name} (exit ${status}): ${stderr.slice(0, 3000)}`);
  return JSON.parse(line.slice('MEMORY '.length)) as { peakRssMb: number; heapUsedMb: number; failures: number };
}
