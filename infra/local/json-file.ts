/** The local stack's small state files (keys.json, stack.json): written atomically, read leniently. */
import { readFile, rename, writeFile } from 'node:fs/promises';

export async function writeJson(file: string, data: unknown): Promise<void> {
  await writeFile(`${file}.tmp`, `${JSON.stringify(data, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}

export async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}
