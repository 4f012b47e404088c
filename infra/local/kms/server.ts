/**
 * A small AWS KMS-compatible endpoint for the local stack, so the production code (the real
 * `@aws-sdk/client-kms`) signs and encrypts against it unchanged: point the client's `endpoint` here, with any
 * credentials (SigV4 signatures are not checked).
 *
 * Protocol: AWS JSON 1.1 — `POST /`, `X-Amz-Target: TrentService.<Operation>`, JSON bodies with blobs as base64
 * and timestamps as epoch seconds; errors are HTTP 400 with `{"__type": "<Code>", "message": "..."}` (and the
 * `x-amzn-ErrorType` header), unexpected failures HTTP 500 `KMSInternalException`.
 *
 * Operations: CreateKey (ECC_SECG_P256K1 and ECC_NIST_EDWARDS25519/SIGN_VERIFY, SYMMETRIC_DEFAULT/ENCRYPT_DECRYPT), DescribeKey, ListKeys,
 * GetPublicKey (DER SubjectPublicKeyInfo), Sign / Verify (ECDSA_SHA_256, MessageType RAW or DIGEST; DER
 * signatures with random nonces and, like real KMS, s NOT normalised to the low half; on Ed25519 keys
 * ED25519_SHA_512 with MessageType RAW, or ED25519_PH_SHA_512 with a 64-byte DIGEST, 64-byte signatures), Encrypt / Decrypt
 * (AES-256-GCM; the ciphertext blob names its key, so Decrypt needs no KeyId; EncryptionContext is bound as
 * additional authenticated data), GenerateDataKey, GenerateRandom, CreateAlias, ListAliases, DeleteAlias,
 * EnableKey, DisableKey, ScheduleKeyDeletion / CancelKeyDeletion (the key is unusable while pending; the local KMS
 * never deletes it). Keys are accepted by key id, key ARN, alias name or alias ARN.
 *
 * LOCAL DEVELOPMENT ONLY: key material is kept in plain text (memory, or `<dataDir>/kms-keys.json`).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeyStore } from './keystore.js';
import { KmsError, createKmsHandlers } from './operations.js';
import type { Body } from './operations.js';

export interface KmsServerOptions {
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Directory for `kms-keys.json`; keys live in memory only when absent. */
  dataDir?: string;
  /** Used in ARNs. Default us-east-1. */
  region?: string;
  /** Used in ARNs. Default 000000000000. */
  accountId?: string;
}

export interface KmsServer {
  /** Endpoint for `new KMSClient({ endpoint: url, ... })`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new KmsError('ValidationException', 'Request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolvePromise(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: Body, errorType?: string): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(payload),
    'x-amzn-requestid': randomUUID(),
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  res.end(payload);
}

export async function startKmsServer(options: KmsServerOptions = {}): Promise<KmsServer> {
  const host = options.host ?? '127.0.0.1';
  const store = new KeyStore(options.dataDir);
  const handlers = createKmsHandlers(store, options.region ?? 'us-east-1', options.accountId ?? '000000000000');

  const server = createServer((req, res) => {
    void (async () => {
      try {
        if (req.method !== 'POST') throw new KmsError('UnknownOperationException', 'Only POST is supported');
        const target = req.headers['x-amz-target'];
        const op = typeof target === 'string' && target.startsWith('TrentService.') ? target.slice('TrentService.'.length) : '';
        const handler = Object.hasOwn(handlers, op) ? handlers[op] : undefined;
        if (!handler) throw new KmsError('UnknownOperationException', `Unknown operation ${String(target)}`);
        const raw = await readBody(req);
        let body: Body = {};
        if (raw.length > 0) {
          const parsed: unknown = JSON.parse(raw.toString('utf8'));
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
            throw new KmsError('SerializationException', 'Request body must be a JSON object');
          }
          body = parsed as Body;
        }
        send(res, 200, handler(body));
      } catch (error) {
        if (error instanceof KmsError) send(res, 400, { __type: error.type, message: error.message }, error.type);
        else if (error instanceof SyntaxError) send(res, 400, { __type: 'SerializationException', message: 'Malformed JSON' }, 'SerializationException');
        else send(res, 500, { __type: 'KMSInternalException', message: error instanceof Error ? error.message : 'internal error' }, 'KMSInternalException');
      }
    })();
  });

  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    port,
    close: () =>
      new Promise<void>((resolvePromise, reject) => {
        server.close((error) => (error ? reject(error) : resolvePromise()));
        server.closeAllConnections();
      }),
  };
}
