import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';

/**
 * Scalar's API reference (npm `@scalar/api-reference`), its standalone browser build: one script holding the
 * renderer and its style sheet, which `/docs/` loads from the gateway's own origin. The file is the package's, not
 * a copy: CDK ships it beside the system bundle's `index.js` (`files` in infra/definition.ts), and where the module
 * runs from its source (the local stack, tests) it is read from the package. It is served after a one-line prelude.
 * About 4.3 MB, so it is read when first asked and never bundled, and served compressed (1.3 MB) to the clients that
 * accept gzip.
 */
export const REFERENCE_BUNDLE_FILE = 'node_modules/@scalar/api-reference/dist/browser/standalone.js';

const CANDIDATES = [
  // The Lambda: copied beside index.js under its own name.
  new URL(`./${REFERENCE_BUNDLE_FILE.split('/').pop() ?? ''}`, import.meta.url),
  // functions/system/ in the repository.
  new URL(`../../${REFERENCE_BUNDLE_FILE}`, import.meta.url),
];

/**
 * Put before the package's script: the zod inside it probes whether it may compile validators with `Function('')`,
 * which the page's policy (no 'unsafe-eval') refuses and reports as a violation; told it is jitless, it does not
 * probe and interprets its schemas as it would after the refusal.
 */
export const REFERENCE_BUNDLE_PRELUDE = '(globalThis.__zod_globalConfig ??= {}).jitless = true;\n';

export interface ReferenceBundle {
  /** The name it is served under: its content's hash in it, so that it can be cached for good. */
  readonly name: string;
  /** The prelude, then the package's file: served as text (in base64 it would near Lambda's 6 MB answer limit). */
  readonly plain: string;
  /** The same, gzipped (compressed when first asked for, not for the page that only names the bundle): served in base64. */
  gzip(): Uint8Array;
}

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

async function readFirst(urls: readonly URL[]): Promise<Buffer> {
  for (const [i, url] of urls.entries()) {
    try {
      return await readFile(url);
    } catch (error) {
      if (!isMissing(error) || i === urls.length - 1) throw error;
    }
  }
  throw new Error('no candidate');
}

let loaded: Promise<ReferenceBundle> | undefined;

/** The bundle, read and named once per Lambda (a failed read is tried again on the next request). */
export const referenceBundle = (): Promise<ReferenceBundle> =>
  (loaded ??= readFirst(CANDIDATES).then(
    (file) => {
      const plain = REFERENCE_BUNDLE_PRELUDE + file.toString('utf8');
      let gzipped: Uint8Array | undefined;
      return { name: `scalar.${createHash('sha256').update(plain).digest('hex').slice(0, 16)}.js`, plain, gzip: () => (gzipped ??= gzipSync(plain)) };
    },
    (error: unknown) => {
      loaded = undefined;
      throw error;
    },
  ));

/** Whether an `Accept-Encoding` value accepts gzip (`gzip`, `x-gzip` or `*`, with a quality above 0). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '').split(',').some((part) => {
    const [coding = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (!['gzip', 'x-gzip', '*'].includes(coding)) return false;
    const q = params.map((p) => /^q=([0-9.]+)$/.exec(p)?.[1]).find((v) => v !== undefined);
    return q === undefined || Number(q) > 0;
  });
}
