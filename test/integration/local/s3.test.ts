import { GetObjectCommand, ListBucketsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_EXPORT_BUCKET, startS3 } from '../../../infra/local/s3.js';

/** The local stack's S3 server (s3rver) as the gateway uses it: path-style SDK calls, presigned GETs, persistence. */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const client = (url: string, accessKeyId = 'local') =>
  new S3Client({ region: 'us-east-1', endpoint: url, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey: 'local' } });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gateway-s3-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('keeps objects in its directory across restarts, with the exports bucket made once', async () => {
  const first = await startS3({ directory: dir });
  const s3 = client(first.url);
  try {
    await s3.send(new PutObjectCommand({ Bucket: LOCAL_EXPORT_BUCKET, Key: 'exports/t/e.csv', Body: 'id\r\n1\r\n', ContentType: 'text/csv' }));
  } finally {
    s3.destroy();
    await first.close();
  }
  const second = await startS3({ directory: dir });
  const again = client(second.url);
  try {
    expect((await again.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name)).toEqual([LOCAL_EXPORT_BUCKET]);
    const url = await getSignedUrl(again, new GetObjectCommand({ Bucket: LOCAL_EXPORT_BUCKET, Key: 'exports/t/e.csv' }), { expiresIn: 900 });
    const res = await fetch(url);
    expect([res.status, await res.text()]).toEqual([200, 'id\r\n1\r\n']);
  } finally {
    again.destroy();
    await second.close();
  }
});

it('refuses unknown access keys and expired presigned URLs, and removes a temporary directory on close', async () => {
  const s3 = await startS3();
  const known = client(s3.url);
  const stranger = client(s3.url, 'nobody');
  try {
    await expect(stranger.send(new ListBucketsCommand({}))).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
    await known.send(new PutObjectCommand({ Bucket: LOCAL_EXPORT_BUCKET, Key: 'k', Body: 'x' }));
    // Signed two hours ago for one minute.
    const stale = await getSignedUrl(known, new GetObjectCommand({ Bucket: LOCAL_EXPORT_BUCKET, Key: 'k' }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 2 * 3600_000),
    });
    expect((await fetch(stale)).status).toBe(403);
  } finally {
    known.destroy();
    stranger.destroy();
    await s3.close();
  }
  expect(existsSync(s3.directory)).toBe(false);
});
