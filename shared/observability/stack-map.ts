import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Stack traces in the sources' terms, mapped when an error is logged rather than at load. The API Lambdas run
 * without `--enable-source-maps`, with which Node reads and parses every bundle's source map (about 400 KB) while
 * importing it, on every cold start; the one place that logs their unexpected errors (shared/http/errors.ts) maps
 * the stack here instead, reading a bundle's `.map` once, on the first error that names it.
 *
 * A frame whose file has no readable map beside it (the local stack runs the sources, which have none) is left as
 * it is, and so is a frame already in the sources' terms.
 */

const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** `/x/index.js:1:2345` or `file:///x/index.mjs:1:2345` in a V8 stack frame. */
const FRAME = /((?:file:\/\/)?\/[^\s():]+\.m?js):(\d+):(\d+)/g;

/**
 * A source as the map names it, relative to where the bundle was built (`../../../shared/http/route.ts`): the
 * repository's path (`shared/http/route.ts`, `node_modules/zod/...`), which reads the same wherever the bundle runs.
 */
const sourceName = (source: string): string => (source.startsWith('file://') ? fileURLToPath(source) : source.replace(/^(?:\.\.?\/)+/, ''));

/** `stack` with each frame of a bundled file that has a source map beside it read in the sources' terms. */
export function mappedStack(stack: string): string {
  return stack.replace(FRAME, (frame: string, location: string, line: string, column: string) => {
    const file = location.startsWith('file://') ? fileURLToPath(location) : location;
    const map = mapOf(file);
    if (!map) return frame;
    // The mapping at or before the position (V8 counts lines and columns from 1, source maps from 0), if it is on
    // the frame's line.
    const entry = map.findEntry(Number(line) - 1, Number(column) - 1) as {
      generatedLine?: number;
      originalSource?: string;
      originalLine?: number;
      originalColumn?: number;
    };
    if (
      entry.generatedLine !== Number(line) - 1 ||
      entry.originalSource === undefined ||
      entry.originalLine === undefined ||
      entry.originalColumn === undefined
    ) {
      return frame;
    }
    return `${sourceName(entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}
