/**
 * An S3-compatible server on the local stack (npm `s3rver` 3.7, in-process, files on disk): the bucket of the
 * transaction exports, spoken to by the real `@aws-sdk/client-s3` (path-style, `AWS_ENDPOINT_URL_S3`) and read through
 * the real presigner's URLs with a plain GET.
 *
 * s3rver checks that a request names a known access key and that a presigned URL has not expired, but not the SigV4
 * signature itself: tests of signing and expiry check the presigner's URLs (test/unit/transactions), not this server.
 * It knows one account (`S3RVER`); the stack's own access keys are registered with it here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** The bucket the local stack gives the handlers as `EXPORT_BUCKET`. */
export const LOCAL_EXPORT_BUCKET = 'gateway-exports';

export interface StartS3Options {
  readonly host?: string;
  /** 0 or undefined: a free port. */
  readonly port?: number;
  /** Where objects are kept (persists across restarts); undefined: a temporary dir removed on close. */
  readonly directory?: string;
  /** Buckets created at start (existing ones are kept). Default: the exports bucket. */
  readonly buckets?: readonly string[];
  /** Access keys the server accepts besides s3rver's own; default the local stack's (`local`). */
  readonly credentials?: readonly { readonly accessKeyId: string; readonly secretAccessKey: string }[];
  readonly log?: (line: string) => void;
}

export interface LocalS3 {
  /** Endpoint for AWS_ENDPOINT_URL_S3, e.g. http://127.0.0.1:40123 */
  readonly url: string;
  readonly port: number;
  readonly directory: string;
  readonly buckets: readonly string[];
  close(): Promise<void>;
}

/** s3rver's account registry (lib/models/account.js; no types are published for it). */
interface S3rverAccounts {
  readonly DUMMY_ACCOUNT: { createKeyPair(accessKeyId: string, secretAccessKey: string): void };
}

const require = createRequire(import.meta.url);

export async function startS3(options: StartS3Options = {}): Promise<LocalS3> {
  const host = options.host ?? '127.0.0.1';
  const buckets = options.buckets ?? [LOCAL_EXPORT_BUCKET];
  const accounts = require('s3rver/lib/models/account.js') as S3rverAccounts;
  for (const c of options.credentials ?? [{ accessKeyId: 'local', secretAccessKey: 'local' }]) {
    accounts.DUMMY_ACCOUNT.createKeyPair(c.accessKeyId, c.secretAccessKey);
  }
  const temporary = options.directory === undefined;
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'gateway-s3-')));
  const server = new S3rver({
    address: host,
    port: options.port ?? 0,
    silent: true,
    directory,
    // Path-style only: `<bucket>.127.0.0.1` names nothing.
    vhostBuckets: false,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  let address;
  try {
    address = await server.run();
  } catch (error) {
    if (temporary) await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const url = `http://${host}:${address.port}`;
  options.log?.(`s3: S3 on ${url} (buckets ${buckets.join(', ')}; objects in ${temporary ? 'a temporary dir' : directory})`);
  const close = async (): Promise<void> => {
    (server as unknown as { httpServer?: Server }).httpServer?.closeAllConnections();
    await server.close();
    if (temporary) await rm(directory, { recursive: true, force: true });
  };
  return { url, port: address.port, directory, buckets, close };
}
