import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startTestTable } from '../../support/dynamodb.js';
import type { TestTable } from '../../support/dynamodb.js';

/**
 * The workers' traces as X-Ray receives them: a worker run in a child process with Lambda's environment (tracing
 * active, a sampled trace id) sends its segments to a UDP "daemon" this test listens as; what arrives is read.
 */

interface Document {
  readonly name: string;
  readonly trace_id?: string;
  readonly parent_id?: string;
  readonly id: string;
  readonly annotations?: Record<string, string | number | boolean>;
  readonly namespace?: string;
  readonly aws?: { operation?: string; table_name?: string };
  readonly fault?: boolean;
  readonly error?: boolean;
}

const TRACE_ROOT = '1-67a0b1c2-0123456789abcdef01234567';
let table: TestTable;

beforeAll(async () => {
  table = await startTestTable('tracing');
});
afterAll(() => table.stop());

async function runTraced(): Promise<{ documents: Document[]; raw: string; stdout: string }> {
  const daemon = createSocket('udp4');
  const packets: string[] = [];
  daemon.on('message', (message) => packets.push(message.toString('utf8')));
  await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
  const port = (daemon.address() as AddressInfo).port;
  try {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(new URL('./trace-probe.ts', import.meta.url))],
        {
          env: {
            ...process.env,
            NODE_OPTIONS: '',
            AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
            AWS_LAMBDA_FUNCTION_NAME: 'probe',
            LAMBDA_TASK_ROOT: '/var/task',
            _X_AMZN_TRACE_ID: `Root=${TRACE_ROOT};Parent=53995c3f42cd8ad8;Sampled=1`,
            AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${port}`,
            POWERTOOLS_LOG_LEVEL: 'ERROR',
          },
          timeout: 60_000,
        },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    // UDP: what was sent before the child exited is in the socket's buffer.
    await new Promise((r) => setTimeout(r, 200));
    const documents = packets.map((p) => JSON.parse(p.slice(p.indexOf('\n') + 1)) as Document);
    return { documents, raw: packets.join('\n'), stdout };
  } finally {
    daemon.close();
  }
}

describe('worker tracing', () => {
  let traced: Awaited<ReturnType<typeof runTraced>>;
  beforeAll(async () => {
    traced = await runTraced();
  }, 90_000);

  it('gives each invocation a subsegment in the trace, annotated with the worker, its batch and its failures', () => {
    expect(JSON.parse(traced.stdout)).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-2' }] });
    const sqs = traced.documents.find((d) => d.name === '## trace-probe');
    expect(sqs?.trace_id).toBe(TRACE_ROOT);
    expect(sqs?.annotations).toEqual({ ColdStart: expect.any(Boolean), Service: 'gateway', worker: 'trace-probe', records: 2, failed: 1 });
    const scheduled = traced.documents.find((d) => d.name === '## trace-probe-schedule');
    expect(scheduled?.annotations).toEqual({ ColdStart: false, Service: 'gateway', worker: 'trace-probe-schedule' });
  });

  it("puts every DynamoDB call of an invocation in that invocation's subsegment", () => {
    const sqs = traced.documents.find((d) => d.name === '## trace-probe');
    const calls = traced.documents.filter((d) => d.name === 'DynamoDB');
    expect(calls.map((c) => [c.namespace, c.aws?.operation, c.aws?.table_name, c.parent_id, c.fault ?? false])).toEqual([
      ['aws', 'GetItem', table.tableName, sqs?.id, false],
      ['aws', 'GetItem', table.tableName, sqs?.id, false],
    ]);
  });

  it('sends nothing of the records: no e-mail, address or secret', () => {
    expect(traced.documents.length).toBeGreaterThan(3);
    for (const leak of ['payer@example.com', '52908400098527886E0F7030069857D2E4169EE7', 'whsec_probe']) expect(traced.raw).not.toContain(leak);
  });
});
