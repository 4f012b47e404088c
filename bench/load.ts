import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

/**
 * HTTP load from a separate process (autocannon's CLI), so the load generator does not share the event
 * loop of the server it measures. Each run reports requests per second and latency percentiles.
 */
const run = promisify(execFile);
const autocannon = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly seconds: number;
  readonly connections?: number;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const args = [autocannon, '-j', '-c', String(options.connections ?? 10), '-d', String(options.seconds), '-m', options.method ?? 'GET'];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (options.body) args.push('-b', options.body);
  args.push(options.url);
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const report = JSON.parse(stdout) as {
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  return {
    requestsPerSecond: report.requests.average,
    p50Ms: report.latency.p50,
    p99Ms: report.latency.p99,
    non2xx: report.non2xx,
    errors: report.errors,
  };
}
