import type { CompletedPart, S3Client } from '@aws-sdk/client-s3';
import type { ExportFiles, ExportUpload } from '../usecases/transactions/export-ports.js';
import { traced } from '../observability/client-tracing.js';

/**
 * Export files in S3 (the local stack: an S3-compatible server, infra/local/s3.ts). A file is streamed: text is
 * buffered until a part is full, then sent as one part of a multipart upload, so memory holds at most one part. Every
 * part but the last has exactly `partBytes` (S3's minimum is 5 MiB); a file smaller than one part is a single
 * PutObject. Nothing is visible under the key before `complete`; an aborted upload is dropped (and S3's lifecycle rule
 * clears any upload a crash left, infra/cdk/constructs/exports-bucket.ts). Downloads are presigned GETs (SigV4).
 *
 * The S3 client and the presigner are loaded with the first client made or file used: the transactions API, which
 * only presigns the download of a finished export, starts without them.
 */

const s3Sdk = () => import('@aws-sdk/client-s3');

/** S3's smallest part (all but the last). */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** The part size used: 8 MiB holds 10,000 parts (S3's maximum) up to 80 GB. */
export const PART_BYTES = 8 * 1024 * 1024;
/** S3 numbers parts 1 to 10,000. */
const MAX_PARTS = 10_000;

/**
 * The S3 client of the export files. With `endpoint` (an S3-compatible server, `AWS_ENDPOINT_URL_S3`), buckets are
 * addressed by path (`<endpoint>/<bucket>/<key>`), as such servers expect; on AWS, by virtual host.
 */
export async function exportsS3Client(options: { readonly region: string; readonly endpoint?: string | undefined }): Promise<S3Client> {
  const { S3Client } = await s3Sdk();
  return traced(
    new S3Client({
      region: options.region,
      maxAttempts: 5,
      ...(options.endpoint !== undefined ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
    }),
  );
}

class S3Upload implements ExportUpload {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private bytes = 0;
  private uploadId: string | undefined;
  private readonly parts: CompletedPart[] = [];
  private state: 'open' | 'completed' | 'aborted' = 'open';

  constructor(
    private readonly client: () => Promise<S3Client>,
    private readonly target: { readonly Bucket: string; readonly Key: string },
    private readonly file: { readonly contentType: string; readonly fileName: string },
    private readonly partBytes: number,
  ) {}

  private get headers() {
    return { ContentType: this.file.contentType, ContentDisposition: `attachment; filename="${this.file.fileName.replace(/["\\\r\n]/g, '_')}"` };
  }

  private take(size: number): Buffer {
    const all = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.buffered);
    const part = all.subarray(0, size);
    const rest = all.subarray(size);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return part;
  }

  private async sendPart(body: Buffer): Promise<void> {
    const { CreateMultipartUploadCommand, UploadPartCommand } = await s3Sdk();
    const client = await this.client();
    if (this.uploadId === undefined) {
      const created = await client.send(new CreateMultipartUploadCommand({ ...this.target, ...this.headers }));
      if (!created.UploadId) throw new Error(`CreateMultipartUpload of ${this.target.Key} returned no UploadId`);
      this.uploadId = created.UploadId;
    }
    const PartNumber = this.parts.length + 1;
    if (PartNumber > MAX_PARTS) throw new Error(`The export ${this.target.Key} needs more than ${MAX_PARTS} parts`);
    const sent = await client.send(new UploadPartCommand({ ...this.target, UploadId: this.uploadId, PartNumber, Body: body, ContentLength: body.length }));
    this.parts.push({ PartNumber, ETag: sent.ETag });
  }

  async write(text: string): Promise<void> {
    if (this.state !== 'open') throw new Error(`The upload of ${this.target.Key} is ${this.state}`);
    if (text.length === 0) return;
    const chunk = Buffer.from(text, 'utf8');
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    this.bytes += chunk.length;
    while (this.buffered >= this.partBytes) await this.sendPart(this.take(this.partBytes));
  }

  async complete(): Promise<{ bytes: number }> {
    if (this.state !== 'open') throw new Error(`The upload of ${this.target.Key} is ${this.state}`);
    const { CompleteMultipartUploadCommand, PutObjectCommand } = await s3Sdk();
    const client = await this.client();
    if (this.uploadId === undefined) {
      const body = this.take(this.buffered);
      await client.send(new PutObjectCommand({ ...this.target, ...this.headers, Body: body, ContentLength: body.length }));
    } else {
      if (this.buffered > 0) await this.sendPart(this.take(this.buffered));
      await client.send(new CompleteMultipartUploadCommand({ ...this.target, UploadId: this.uploadId, MultipartUpload: { Parts: this.parts } }));
    }
    this.state = 'completed';
    return { bytes: this.bytes };
  }

  async abort(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'aborted';
    this.chunks = [];
    this.buffered = 0;
    if (this.uploadId === undefined) return;
    // Best effort: an upload left behind is removed by the bucket's lifecycle rule.
    const { AbortMultipartUploadCommand } = await s3Sdk();
    await (await this.client()).send(new AbortMultipartUploadCommand({ ...this.target, UploadId: this.uploadId })).catch(() => undefined);
  }
}

export interface S3ExportFilesOptions {
  /** The client; or the promise of it (`exportsS3Client`), or a function that makes it when a file is first used. */
  readonly client: S3Client | Promise<S3Client> | (() => Promise<S3Client>);
  /** The exports bucket (`EXPORT_BUCKET`); unset, every use throws. */
  readonly bucket: string | undefined;
  /** Part size, at least MIN_PART_BYTES (default PART_BYTES). */
  readonly partBytes?: number;
}

export function s3ExportFiles(options: S3ExportFilesOptions): ExportFiles {
  const partBytes = options.partBytes ?? PART_BYTES;
  if (!Number.isSafeInteger(partBytes) || partBytes < MIN_PART_BYTES) throw new RangeError(`An S3 part holds at least ${MIN_PART_BYTES} bytes`);
  const bucket = (): string => {
    if (options.bucket === undefined) throw new Error('EXPORT_BUCKET is not configured: export files cannot be written or downloaded');
    return options.bucket;
  };
  let made: Promise<S3Client> | undefined;
  const client = (): Promise<S3Client> => (made ??= typeof options.client === 'function' ? options.client() : Promise.resolve(options.client));
  return {
    upload: (key, file) => new S3Upload(client, { Bucket: bucket(), Key: key }, file, partBytes),
    downloadUrl: async (key, { signedAt, expiresInSeconds }) => {
      const Bucket = bucket();
      const [{ GetObjectCommand }, { getSignedUrl }] = await Promise.all([s3Sdk(), import('@aws-sdk/s3-request-presigner')]);
      return getSignedUrl(await client(), new GetObjectCommand({ Bucket, Key: key }), { expiresIn: expiresInSeconds, signingDate: signedAt });
    },
  };
}
