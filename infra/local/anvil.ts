/**
 * Starts a local EVM chain: the `anvil` binary shipped by the npm package `@foundry-rs/anvil` (a platform
 * package such as `@foundry-rs/anvil-linux-amd64`), bound to 127.0.0.1. Used by the local stack and the tests.
 *
 * Anvil predeploys the CREATE2 deployer proxy (0x4e59b448…956c) and funds 10 dev accounts (10 000 ETH each) of
 * the mnemonic `test test … junk`; `provider.getSigner(i)` gives them as unlocked JSON-RPC signers.
 *
 * Persistence: with `stateFile`, anvil loads the file on start if it exists, dumps its state every
 * `stateIntervalSeconds` (default 5) and on a graceful stop (SIGTERM, which `close()` sends).
 *
 * The chain dies with this process, however it ends (infra/local/supervise.ts).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { dieWithParent } from './supervise.js';

export const ANVIL_DEFAULT_MNEMONIC = 'test test test test test test test test test test test junk';
export const ANVIL_DEFAULT_CHAIN_ID = 31337;

export interface AnvilOptions {
  /** Port to bind; a free one when absent. */
  port?: number;
  host?: string;
  chainId?: number;
  /** Interval mining every N seconds; automine (a block per transaction) when absent. */
  blockTimeSeconds?: number;
  /** Load from / dump to this JSON file (e.g. `.local/anvil-state.json`). */
  stateFile?: string;
  stateIntervalSeconds?: number;
  accounts?: number;
  balanceEth?: number;
  mnemonic?: string;
  /** Start without the CREATE2 deployer proxy (to exercise deploying it). */
  disableCreate2Deployer?: boolean;
  /** Override the binary (else `ANVIL_BIN`, else the one from node_modules). */
  binary?: string;
  /** How long to wait for the RPC to answer. Default 20 s. */
  readyTimeoutMs?: number;
}

export interface AnvilInstance {
  rpcUrl: string;
  port: number;
  chainId: number;
  pid: number;
  /** Stops anvil (SIGTERM, so it dumps its state; SIGKILL after 5 s). Idempotent. */
  close(): Promise<void>;
}

/** Path of the anvil binary for this platform, from `@foundry-rs/anvil-<os>-<arch>`. */
export function anvilBinary(): string {
  const override = process.env.ANVIL_BIN;
  if (override) return override;
  const os = process.platform === 'win32' ? 'win32' : process.platform;
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${os}-${arch}`;
  const require = createRequire(import.meta.url);
  let dir: string;
  try {
    dir = dirname(require.resolve(`${pkg}/package.json`));
  } catch (error) {
    throw new Error(`anvil is not installed for ${process.platform}/${process.arch} (npm package ${pkg}); set ANVIL_BIN`, {
      cause: error,
    });
  }
  const bin = join(dir, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(bin)) throw new Error(`anvil binary missing at ${bin}; set ANVIL_BIN`);
  return bin;
}

/** Asks the OS for a free TCP port on `host`. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function rpcChainId(url: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1000),
    });
    const body = (await res.json()) as { result?: string };
    return body.result ? Number(BigInt(body.result)) : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function waitExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function launch(options: AnvilOptions, port: number): Promise<AnvilInstance> {
  const host = options.host ?? '127.0.0.1';
  const chainId = options.chainId ?? ANVIL_DEFAULT_CHAIN_ID;
  const args = ['--silent', '--host', host, '--port', String(port), '--chain-id', String(chainId)];
  if (options.blockTimeSeconds !== undefined) args.push('--block-time', String(options.blockTimeSeconds));
  if (options.accounts !== undefined) args.push('--accounts', String(options.accounts));
  if (options.balanceEth !== undefined) args.push('--balance', String(options.balanceEth));
  if (options.mnemonic !== undefined) args.push('--mnemonic', options.mnemonic);
  if (options.disableCreate2Deployer) args.push('--disable-default-create2-deployer');
  if (options.stateFile !== undefined) {
    mkdirSync(dirname(options.stateFile), { recursive: true });
    args.push('--state', options.stateFile, '--state-interval', String(options.stateIntervalSeconds ?? 5));
  }

  const child = spawn(options.binary ?? anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  dieWithParent(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  // Never leave an orphan chain behind if the parent exits without calling close() (and the watchdog covers a
  // parent that is killed outright).
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      if (!(await waitExit(child, 5000))) {
        child.kill('SIGKILL');
        await waitExit(child, 2000);
      }
    })();
    return closing;
  };

  const rpcUrl = `http://${host}:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 20_000);
  for (;;) {
    if (spawnError) {
      await close();
      throw new Error(`cannot start anvil: ${spawnError.message}`, { cause: spawnError });
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      await close();
      throw new Error(`anvil exited during start-up (code ${String(child.exitCode)}): ${stderr.trim()}`);
    }
    const id = await rpcChainId(rpcUrl);
    if (id !== undefined) {
      if (id !== chainId) {
        await close();
        throw new Error(`port ${port} answers with chain id ${id}, not ${chainId}: another node is listening there`);
      }
      break;
    }
    if (Date.now() > deadline) {
      await close();
      throw new Error(`anvil did not answer on ${rpcUrl} in time: ${stderr.trim()}`);
    }
    await sleep(50);
  }
  return { rpcUrl, port, chainId, pid: child.pid ?? -1, close };
}

export async function startAnvil(options: AnvilOptions = {}): Promise<AnvilInstance> {
  if (options.port !== undefined) return launch(options, options.port);
  // A probed free port can be taken by someone else before anvil binds it: retry on a fresh one.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await launch(options, await freePort(options.host));
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}
