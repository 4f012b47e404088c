/**
 * Where the stream source is in each shard (the last sequence number processed or skipped by the filter), per
 * worker, persisted in `<dataDir>/checkpoints/<worker>.json` (or kept in memory only without a data dir).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorText, isRecord } from './worker.js';

export interface Checkpoint {
  streamArn: string;
  /** Per shard: the last sequence number processed (or skipped by the filter), and whether it is finished. */
  shards: Record<string, { sequenceNumber?: string; done?: boolean }>;
}

export interface Checkpoints {
  /** Writes after every write queued before it; a failure is logged, never thrown. */
  save(name: string, data: Checkpoint): void;
  load(name: string): Promise<Checkpoint | undefined>;
  /** Resolves when every queued write is done. */
  flushed(): Promise<void>;
}

export function checkpointStore(dataDir: string | null | undefined, log: (line: string) => void): Checkpoints {
  const writes = new Map<string, Promise<void>>();
  const fileOf = (name: string): string | undefined => (dataDir ? join(dataDir, 'checkpoints', `${name}.json`) : undefined);
  return {
    save: (name, data) => {
      const file = fileOf(name);
      if (!file) return;
      const text = `${JSON.stringify(data, null, 1)}\n`;
      const write = (writes.get(name) ?? Promise.resolve())
        .then(async () => {
          await mkdir(join(file, '..'), { recursive: true });
          await writeFile(`${file}.tmp`, text);
          await rename(`${file}.tmp`, file);
        })
        .catch((error: unknown) => log(`pollers: cannot write checkpoint ${file}: ${errorText(error)}`));
      writes.set(name, write);
    },
    load: async (name) => {
      const file = fileOf(name);
      if (!file) return undefined;
      try {
        const data: unknown = JSON.parse(await readFile(file, 'utf8'));
        if (isRecord(data) && typeof data.streamArn === 'string' && isRecord(data.shards)) return data as unknown as Checkpoint;
      } catch {
        // No checkpoint yet (or unreadable): start from the trim horizon.
      }
      return undefined;
    },
    flushed: async () => {
      await Promise.allSettled([...writes.values()]);
    },
  };
}
