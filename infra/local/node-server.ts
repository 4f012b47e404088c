/**
 * What the local chain nodes (Bitcoin, Solana, TRON: infra/local/bitcoin.ts, solana.ts, tron.ts) share around their
 * chains: the HTTP server on 127.0.0.1 (a body read with a size bound, listening on a free port, closing with its
 * open connections), the block timer, and amounts in base units as `/_local/*` requests carry them.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The request's body as text; `tooLarge()` is thrown past `maxBytes`. */
export async function readText(req: IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Listens on 127.0.0.1 (`port` 0: a free one); resolves with the port. */
export async function listenOnLoopback(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Closes the server and the connections still open on it. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A block every `intervalMs` (not keeping the process alive); `autoMine` false: none. Returns how to stop it. */
export function blockTimer(autoMine: boolean | undefined, intervalMs: number, mine: () => unknown): () => void {
  const timer = autoMine === false ? undefined : setInterval(mine, intervalMs);
  timer?.unref();
  return () => {
    if (timer) clearInterval(timer);
  };
}

/** `"123"` or 123 (a bigint too) as a non-negative bigint of base units; `fail(message)` is thrown otherwise. */
export function baseUnits(value: unknown, what: string, unit: string, fail: (message: string) => Error): bigint {
  if (typeof value === 'bigint' && value >= 0n) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  throw fail(`${what} must be a non-negative integer (${unit})`);
}
