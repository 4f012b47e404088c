/**
 * Run in a child process as Lambda would run a traced worker (test/integration/observability/tracing.test.ts sets
 * the environment): an SQS worker of two records whose first reads the table and second fails, then a scheduled
 * worker. The records carry what must never reach a trace (an e-mail, an address, a secret); the worker logs
 * nothing of them either.
 */
import type { SQSEvent } from 'aws-lambda';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../../shared/store/client.js';
import { scheduledWorker, sqsWorker } from '../../../shared/runtime/worker.js';

const record = (id: string, body: object) =>
  ({
    messageId: id,
    body: JSON.stringify(body),
    receiptHandle: id,
    attributes: {},
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:probe',
    awsRegion: 'us-east-1',
  }) as SQSEvent['Records'][number];

const probe = sqsWorker('trace-probe', async (message) => {
  const body = JSON.parse(message.body) as { fail?: boolean };
  await db().send(new GetCommand({ TableName: tableName(), Key: { pk: 'PROBE', sk: 'PROBE' } }));
  if (body.fail) throw new Error('this record fails');
});

const scheduled = scheduledWorker('trace-probe-schedule', async () => ({ done: true }));

const context = { awsRequestId: 'req-1', functionName: 'probe', getRemainingTimeInMillis: () => 10_000 };
const secret = { email: 'payer@example.com', address: '0x52908400098527886E0F7030069857D2E4169EE7', secret: 'whsec_probe' };
const answer = await probe({ Records: [record('m-1', secret), record('m-2', { ...secret, fail: true })] }, context as never);
await scheduled({}, context);
console.log(JSON.stringify(answer));
