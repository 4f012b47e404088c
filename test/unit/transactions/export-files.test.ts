import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { createHash, createHmac } from 'node:crypto';
import { exportsS3Client, MIN_PART_BYTES, PART_BYTES, s3ExportFiles } from '../../../shared/store/export-files.js';

/**
 * The S3 adapter of the export files: streaming in parts (against a mocked client), and the presigned download URLs,
 * whose SigV4 signature is checked here by an independent implementation of the algorithm (the local S3 server
 * does not verify signatures).
 */

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const FILE = { contentType: 'text/csv; charset=utf-8', fileName: 'transactions-e.csv' };

describe('writing an export file', () => {
  const s3 = mockClient(S3Client);
  const client = new S3Client({ region: 'us-east-1', credentials: CREDENTIALS });
  const files = s3ExportFiles({ client, bucket: 'exports-bucket' });
  let partNumber = 0;

  beforeEach(() => {
    s3.reset();
    partNumber = 0;
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'upload-1' });
    s3.on(UploadPartCommand).callsFake(() => ({ ETag: `"etag-${++partNumber}"` }));
    s3.on(CompleteMultipartUploadCommand).resolves({});
    s3.on(PutObjectCommand).resolves({});
    s3.on(AbortMultipartUploadCommand).resolves({});
  });
  afterAll(() => s3.restore());

  /** Writes `total` bytes in chunks of `chunk` (ASCII, so bytes = characters); the text written, for comparison. */
  async function writeBytes(upload: ReturnType<typeof files.upload>, total: number, chunk: number): Promise<string> {
    let written = '';
    for (let at = 0; at < total; at += chunk) {
      const text = String.fromCharCode(97 + ((at / chunk) % 26)).repeat(Math.min(chunk, total - at));
      written += text;
      await upload.write(text);
    }
    return written;
  }

  const bodies = (): Buffer[] => s3.commandCalls(UploadPartCommand).map((c) => c.args[0].input.Body as Buffer);

  it('sends a file smaller than a part as one PutObject, with its type and download name', async () => {
    const upload = files.upload('exports/t/e.csv', FILE);
    await upload.write('id,amount\r\n');
    await upload.write('');
    await upload.write('é,1.5\r\n');
    expect(await upload.complete()).toEqual({ bytes: Buffer.byteLength('id,amount\r\né,1.5\r\n') });
    expect(s3.commandCalls(CreateMultipartUploadCommand)).toHaveLength(0);
    const put = s3.commandCalls(PutObjectCommand)[0]?.args[0].input;
    expect(put).toMatchObject({
      Bucket: 'exports-bucket',
      Key: 'exports/t/e.csv',
      ContentType: FILE.contentType,
      ContentDisposition: 'attachment; filename="transactions-e.csv"',
    });
    expect((put?.Body as Buffer).toString('utf8')).toBe('id,amount\r\né,1.5\r\n');
  });

  it('streams a larger file in parts of exactly PART_BYTES but the last, while it is written', async () => {
    const upload = files.upload('exports/t/big.csv', FILE);
    const total = 2 * PART_BYTES + 1_234_567;
    // Each 300 kB write beyond a full part sends that part at once: memory holds at most one part and one write.
    const written = await writeBytes(upload, total, 300_000);
    expect(bodies().map((b) => b.length)).toEqual([PART_BYTES, PART_BYTES]);
    expect(s3.commandCalls(CompleteMultipartUploadCommand)).toHaveLength(0);
    expect(await upload.complete()).toEqual({ bytes: total });
    expect(bodies().map((b) => b.length)).toEqual([PART_BYTES, PART_BYTES, 1_234_567]);
    expect(s3.commandCalls(UploadPartCommand).map((c) => [c.args[0].input.PartNumber, c.args[0].input.UploadId])).toEqual([
      [1, 'upload-1'],
      [2, 'upload-1'],
      [3, 'upload-1'],
    ]);
    expect(Buffer.concat(bodies()).toString('utf8')).toBe(written);
    expect(s3.commandCalls(CreateMultipartUploadCommand)[0]?.args[0].input).toMatchObject({ Key: 'exports/t/big.csv', ContentType: FILE.contentType });
    expect(s3.commandCalls(CompleteMultipartUploadCommand)[0]?.args[0].input).toEqual({
      Bucket: 'exports-bucket',
      Key: 'exports/t/big.csv',
      UploadId: 'upload-1',
      MultipartUpload: {
        Parts: [
          { PartNumber: 1, ETag: '"etag-1"' },
          { PartNumber: 2, ETag: '"etag-2"' },
          { PartNumber: 3, ETag: '"etag-3"' },
        ],
      },
    });
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
  });

  it('sends no empty last part when the file ends on a part boundary', async () => {
    const upload = files.upload('exports/t/even.csv', FILE);
    await writeBytes(upload, 2 * PART_BYTES, PART_BYTES / 4);
    await upload.complete();
    expect(bodies().map((b) => b.length)).toEqual([PART_BYTES, PART_BYTES]);
  });

  it('aborts a multipart upload, and refuses writes after it', async () => {
    const upload = files.upload('exports/t/dropped.csv', FILE);
    await writeBytes(upload, PART_BYTES + 10, 1_000_000);
    await upload.abort();
    await upload.abort();
    expect(s3.commandCalls(AbortMultipartUploadCommand).map((c) => c.args[0].input)).toEqual([
      { Bucket: 'exports-bucket', Key: 'exports/t/dropped.csv', UploadId: 'upload-1' },
    ]);
    await expect(upload.write('x')).rejects.toThrow('aborted');
    await expect(upload.complete()).rejects.toThrow('aborted');
    // An abort the server refuses is left to the bucket's lifecycle rule.
    s3.on(AbortMultipartUploadCommand).rejects(new Error('MethodNotAllowed'));
    const other = files.upload('exports/t/other.csv', FILE);
    await writeBytes(other, PART_BYTES, PART_BYTES);
    await expect(other.abort()).resolves.toBeUndefined();
  });

  it('refuses parts below S3 minimum, and any use without a bucket', () => {
    expect(() => s3ExportFiles({ client, bucket: 'b', partBytes: MIN_PART_BYTES - 1 })).toThrow(RangeError);
    expect(() => s3ExportFiles({ client, bucket: undefined }).upload('k', FILE)).toThrow('EXPORT_BUCKET');
  });
});

/* ------------------------------------------------------------------------------------------------ SigV4 check */

const rfc3986 = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** Whether a presigned GET URL carries a valid AWS Signature Version 4 for `secret` (query-string authentication, S3 rules). */
function sigV4Valid(url: string, secret: string): boolean {
  const u = new URL(url);
  const params = [...u.searchParams.entries()];
  const signature = u.searchParams.get('X-Amz-Signature');
  const [, date, region, service] = (u.searchParams.get('X-Amz-Credential') ?? '').split('/');
  const canonicalQuery = params
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([a = '', x = ''], [b = '', y = '']) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const signedHeaders = u.searchParams.get('X-Amz-SignedHeaders') ?? '';
  const headers: Record<string, string> = { host: u.host };
  const canonicalRequest = [
    'GET',
    u.pathname,
    canonicalQuery,
    ...signedHeaders.split(';').map((h) => `${h}:${headers[h] ?? ''}`),
    '',
    signedHeaders,
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', u.searchParams.get('X-Amz-Date'), scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date ?? ''), region ?? ''), service ?? ''), 'aws4_request');
  return hmac(key, stringToSign).toString('hex') === signature;
}

describe('download URLs', () => {
  const signedAt = new Date('2026-03-04T05:06:07.000Z');

  it('are presigned GETs of the object, signed (SigV4) with the credentials, valid for the seconds asked from the signing time', async () => {
    const files = s3ExportFiles({ client: new S3Client({ region: 'eu-west-1', credentials: CREDENTIALS }), bucket: 'exports-bucket' });
    const url = await files.downloadUrl('exports/t-1/e-1.csv', { signedAt, expiresInSeconds: 900 });
    const u = new URL(url);
    expect(`${u.protocol}//${u.host}${u.pathname}`).toBe('https://exports-bucket.s3.eu-west-1.amazonaws.com/exports/t-1/e-1.csv');
    expect(Object.fromEntries(u.searchParams)).toMatchObject({
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIDEXAMPLE/20260304/eu-west-1/s3/aws4_request',
      'X-Amz-Date': '20260304T050607Z',
      'X-Amz-Expires': '900',
      'X-Amz-SignedHeaders': 'host',
      'X-Amz-Signature': expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(sigV4Valid(url, CREDENTIALS.secretAccessKey)).toBe(true);
    // Any other secret, object, lifetime or date does not match the signature.
    expect(sigV4Valid(url, 'another-secret')).toBe(false);
    expect(sigV4Valid(url.replace('e-1.csv', 'e-2.csv'), CREDENTIALS.secretAccessKey)).toBe(false);
    expect(sigV4Valid(url.replace('X-Amz-Expires=900', 'X-Amz-Expires=3600'), CREDENTIALS.secretAccessKey)).toBe(false);
    expect(sigV4Valid(url.replace('20260304T050607Z', '20260304T060607Z'), CREDENTIALS.secretAccessKey)).toBe(false);
  });

  it('honour another lifetime, and address the bucket by path on an S3-compatible endpoint', async () => {
    const local = new S3Client({ region: 'us-east-1', credentials: CREDENTIALS, endpoint: 'http://127.0.0.1:4569', forcePathStyle: true });
    const url = await s3ExportFiles({ client: local, bucket: 'gateway-exports' }).downloadUrl('exports/t/e.json', { signedAt, expiresInSeconds: 60 });
    expect(url.startsWith('http://127.0.0.1:4569/gateway-exports/exports/t/e.json?')).toBe(true);
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('60');
    expect(sigV4Valid(url, CREDENTIALS.secretAccessKey)).toBe(true);
  });

  it('come from a client that uses path-style addressing exactly when an endpoint is configured', async () => {
    const aws = await exportsS3Client({ region: 'us-east-1' });
    const local = await exportsS3Client({ region: 'us-east-1', endpoint: 'http://127.0.0.1:4569' });
    expect([aws.config.forcePathStyle, local.config.forcePathStyle]).toEqual([false, true]);
    expect(await local.config.endpoint?.()).toMatchObject({ hostname: '127.0.0.1', port: 4569, protocol: 'http:' });
    aws.destroy();
    local.destroy();
  });
});
