/**
 * The local stack for integration and e2e tests: in-memory state (a temporary dir, removed on stop), every
 * port free, logs quiet. Tests call `stop()` in afterAll.
 *
 *   let stack: StackHandle;
 *   beforeAll(async () => { stack = await startTestStack({ anvil: false }); });
 *   afterAll(() => stack?.stop());
 */
import { startStack } from '../../infra/local/stack.js';
import type { LogLevel, StackHandle, StackOptions, StackParts } from '../../infra/local/stack.js';

export type { StackHandle } from '../../infra/local/stack.js';
/**
 * The handle `startTestStack` returns (apiUrl, env, stackJson, stop(), and the parts for assertions).
 * `apiUrl` is '' when the http part is off.
 */
export type TestStack = Omit<StackHandle, 'apiUrl'> & { readonly apiUrl: string };

export interface TestStackOptions extends Omit<StackOptions, 'parts' | 'ports'> {
  /** Keep a dataDir to test persistence; default null (in memory). */
  readonly dataDir?: string | null;
}

/**
 * Starts the stack with the given parts (default: everything but anvil and its contracts and the local TRON,
 * Solana and Bitcoin nodes, which most tests do not need and which cost start-up time). `TEST_STACK_LOG=info` shows the stack's logs.
 */
export async function startTestStack(parts: StackParts = {}, options: TestStackOptions = {}): Promise<TestStack> {
  const level = process.env.TEST_STACK_LOG;
  const logLevel: LogLevel = level === 'info' || level === 'debug' || level === 'error' ? level : 'silent';
  const stack = await startStack({
    dataDir: null,
    logLevel,
    ...options,
    ports: { http: 0, dynamodb: 0, sqs: 0, kms: 0, anvil: 0 },
    parts: { anvil: false, contracts: false, tron: false, solana: false, btc: false, ...parts },
  });
  return Object.assign(stack, { apiUrl: stack.apiUrl ?? '' });
}
