/**
 * What the local stack needs of the Lambda runtime, for the HTTP server and the event sources alike: a
 * function's handler imported from its entry module on first use (or given in memory by a test), the
 * `Context` object Lambda passes, and an invocation that ends at the function's deadline.
 */
import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Any Lambda handler: the event type is the caller's business. */
export type LambdaHandler = (event: never, context: Context) => unknown;

/** A function as infra/definition.ts lists it: an entry module exporting `handler`, or, for tests, the handler itself. */
export interface LambdaDefinition<H extends LambdaHandler = LambdaHandler> {
  readonly name: string;
  /** Module exporting `handler`, relative to `rootDir` (or absolute). */
  readonly entry?: string;
  readonly handler?: H;
}

export interface LocalLambdaOptions {
  /** Directory entries are relative to (default: the repository root). */
  readonly rootDir?: string;
  /** Region of the function's ARN (default us-east-1). */
  readonly region?: string;
  /** A failed import is answered from memory for this long before the module is imported again (default 0). */
  readonly retryLoadAfterMs?: number;
  /** Told once per failed import. */
  readonly onLoadError?: (error: Error) => void;
}

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The account id of every local ARN. */
export const LOCAL_ACCOUNT_ID = '123456789012';

/** The invocation ran past its deadline; its message is Lambda's. */
export class LambdaTimeoutError extends Error {
  override readonly name = 'LambdaTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`Task timed out after ${timeoutMs / 1000} seconds`);
  }
}

/** The Context Lambda passes to a handler invoked now with the given deadline (epoch ms). */
export function lambdaContext(functionName: string, region: string, deadline: number): Context {
  const noop = (): void => undefined;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: noop,
    fail: noop,
    succeed: noop,
  };
}

/** One function of the local stack: its handler, loaded once, and its invocations. */
export class LocalLambda<H extends LambdaHandler = LambdaHandler> {
  private handler: H | undefined;
  private loading: Promise<H> | undefined;
  private failedAt = 0;
  private failure: Error | undefined;
  private readonly rootDir: string;
  private readonly region: string;

  constructor(
    readonly definition: LambdaDefinition<H>,
    private readonly options: LocalLambdaOptions = {},
  ) {
    this.handler = definition.handler;
    this.rootDir = options.rootDir ?? REPO_ROOT;
    this.region = options.region ?? 'us-east-1';
  }

  get name(): string {
    return this.definition.name;
  }

  /** The handler if it is loaded already (no promise on the hot path). */
  get loaded(): H | undefined {
    return this.handler;
  }

  /** The handler; its module is imported on first use and kept. A failed import rejects and is tried again later. */
  load(): Promise<H> {
    if (this.handler) return Promise.resolve(this.handler);
    if (this.loading) return this.loading;
    const retryAfter = this.options.retryLoadAfterMs ?? 0;
    if (this.failure && Date.now() - this.failedAt < retryAfter) return Promise.reject(this.failure);
    const entry = this.definition.entry;
    if (!entry) return Promise.reject(new Error(`function ${this.name} has neither entry nor handler`));
    const path = isAbsolute(entry) ? entry : resolve(this.rootDir, entry);
    const loading = import(process.platform === 'win32' ? pathToFileURL(path).href : path).then((mod: unknown) => {
      const handler = typeof mod === 'object' && mod !== null && 'handler' in mod ? mod.handler : undefined;
      if (typeof handler !== 'function') throw new Error(`${entry} does not export a function named handler`);
      return handler as H;
    });
    this.loading = loading.then(
      (handler) => {
        this.handler = handler;
        this.loading = undefined;
        this.failure = undefined;
        return handler;
      },
      (error: unknown) => {
        this.loading = undefined;
        this.failedAt = Date.now();
        this.failure = error instanceof Error ? error : new Error(String(error));
        this.options.onLoadError?.(this.failure);
        throw this.failure;
      },
    );
    return this.loading;
  }

  /**
   * Calls the handler like Lambda: a context whose deadline is `startedAt + timeoutMs`; past `timeoutMs` the
   * invocation rejects with LambdaTimeoutError (the handler's own promise is left to settle unseen).
   */
  async invoke(handler: H, event: unknown, timeoutMs: number, startedAt: number = Date.now()): Promise<unknown> {
    const context = lambdaContext(this.name, this.region, startedAt + timeoutMs);
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        Promise.resolve().then(() => handler(event as never, context)),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new LambdaTimeoutError(timeoutMs)), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
