import type { Context } from 'aws-lambda';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router, compileRoute } from '../../../infra/local/http/router.js';
import { LambdaTimeoutError, LocalLambda } from '../../../infra/local/lambda/runtime.js';
import { batchItemFailures } from '../../../infra/local/sources/worker.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lambda-runtime-'));
  await writeFile(join(dir, 'ok.mjs'), 'export const handler = async (event) => ({ echoed: event });\n');
  await writeFile(join(dir, 'none.mjs'), 'export const other = 1;\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the local Lambda runtime', () => {
  it('invokes a handler with a Lambda context whose deadline is the timeout', async () => {
    let seen: Context | undefined;
    const fn = new LocalLambda({ name: 'fn', handler: (_event: never, context: Context) => ((seen = context), 'done') }, { region: 'eu-west-1' });
    expect(fn.loaded).toBeDefined();
    const handler = await fn.load();
    expect(await fn.invoke(handler, {}, 5_000)).toBe('done');
    expect(seen?.functionName).toBe('fn');
    expect(seen?.invokedFunctionArn).toBe('arn:aws:lambda:eu-west-1:123456789012:function:fn');
    expect(seen?.getRemainingTimeInMillis()).toBeGreaterThan(0);
    expect(seen?.getRemainingTimeInMillis()).toBeLessThanOrEqual(5_000);
  });

  it("ends an invocation at its timeout with Lambda's message", async () => {
    const fn = new LocalLambda({ name: 'slow', handler: () => new Promise(() => undefined) });
    const handler = await fn.load();
    const run = fn.invoke(handler, {}, 50);
    await expect(run).rejects.toBeInstanceOf(LambdaTimeoutError);
    await expect(run).rejects.toThrow('Task timed out after 0.05 seconds');
  });

  it('imports the entry module once, on first use', async () => {
    const fn = new LocalLambda({ name: 'ok', entry: 'ok.mjs' }, { rootDir: dir });
    expect(fn.loaded).toBeUndefined();
    const [a, b] = await Promise.all([fn.load(), fn.load()]);
    expect(a).toBe(b);
    expect(fn.loaded).toBe(a);
    expect(await fn.invoke(a, { n: 1 }, 1_000)).toEqual({ echoed: { n: 1 } });
  });

  it('reports a module without a handler once per import, and retries it only after the pause', async () => {
    const errors: string[] = [];
    const fn = new LocalLambda({ name: 'none', entry: join(dir, 'none.mjs') }, { retryLoadAfterMs: 60_000, onLoadError: (e) => errors.push(e.message) });
    await expect(fn.load()).rejects.toThrow(`${join(dir, 'none.mjs')} does not export a function named handler`);
    await expect(fn.load()).rejects.toThrow('does not export a function named handler');
    expect(errors).toHaveLength(1);
  });

  it('refuses a function with neither entry nor handler', async () => {
    await expect(new LocalLambda({ name: 'empty' }).load()).rejects.toThrow('function empty has neither entry nor handler');
  });
});

describe('partial batch responses', () => {
  it('reads batchItemFailures as Lambda does', () => {
    expect(batchItemFailures(undefined)).toBeUndefined();
    expect(batchItemFailures({ batchItemFailures: [] })).toEqual([]);
    expect(batchItemFailures({ batchItemFailures: [{ itemIdentifier: 'a' }, { itemIdentifier: 'b' }] })).toEqual(['a', 'b']);
    expect(batchItemFailures({ batchItemFailures: [{ itemIdentifier: '' }] })).toBeNull();
    expect(batchItemFailures({ batchItemFailures: 'a' })).toBeNull();
  });
});

describe('API Gateway route selection', () => {
  const target = (name: string) => ({ name });
  const router = new Router(
    [
      ['ANY /things', 'exact'],
      ['GET /things/{id}', 'param'],
      ['ANY /things/{proxy+}', 'greedy'],
      ['$default', 'fallback'],
    ].map(([key, name]) => compileRoute(key as string, target(name as string))),
  );

  it('prefers exact routes, then parameters, then greedy ones, then $default', () => {
    expect(router.match('POST', '/things/')?.route.target.name).toBe('exact');
    expect(router.match('GET', '/things/42')).toMatchObject({ route: { target: { name: 'param' } }, pathParameters: { id: '42' } });
    expect(router.match('POST', '/things/42')).toMatchObject({ route: { target: { name: 'greedy' } }, pathParameters: { proxy: '42' } });
    expect(router.match('GET', '/things/a/b/')).toMatchObject({ pathParameters: { proxy: 'a/b/' } });
    expect(router.match('GET', '/other/')?.route.target.name).toBe('fallback');
  });

  it('refuses route keys API Gateway refuses', () => {
    expect(() => compileRoute('GET /x/', target('f'))).toThrow("ends in '/'");
    expect(() => compileRoute('GET x', target('f'))).toThrow('invalid route key');
  });
});
