import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The shape of the house, read from the source's own imports (every kind: value, type and dynamic with a literal
 * path): no import circle among the shipped and tooling sources, no import running back up a layer, and no
 * source file over 600 lines. ESLint's layer blocks (eslint.config.js) refuse a forbidden import file by file;
 * a circle only shows across files, so it is checked here.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SOURCE_FOLDERS = ['shared', 'functions', 'infra', 'scripts', 'bench', 'clients'];
const MAX_LINES = 600;

function sourceFiles(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'build' || entry.name === 'dist') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(relative(ROOT, path));
    }
  };
  const top = join(ROOT, folder);
  if (statSync(top, { throwIfNoEntry: false })?.isDirectory()) walk(top);
  return out;
}

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

/** The repository files a source imports through relative paths (`./x.js` is `x.ts` beside it). */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT_RE)) {
    const spec = match[1] ?? match[2];
    if (!spec?.startsWith('.')) continue;
    const target = relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts');
    for (const candidate of [target, `${target}.ts`, join(target, 'index.ts')]) {
      if (known.has(candidate)) {
        found.push(candidate);
        break;
      }
    }
  }
  return found;
}

/** Strongly connected components of more than one file (Tarjan). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (node: string): void => {
    indexOf.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) as number, indexOf.get(next) as number));
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indexOf.has(node)) visit(node);
  return out;
}

const files = SOURCE_FOLDERS.flatMap(sourceFiles);
const known = new Set(files);
const graph = new Map(files.map((f) => [f, importsOf(f, known)]));

/**
 * Layers from the ground up: a file may import its own layer or a lower one, never a higher one. Libraries with no
 * port of their own sit under the use cases; adapters, which implement the use cases' ports, above them.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['shared/domain/', 'shared/observability/', 'shared/security/'],
  ['shared/config/', 'shared/net/'],
  ['shared/rates/'],
  ['shared/usecases/'],
  ['shared/store/', 'shared/queue/', 'shared/chain/'],
  ['shared/http/', 'shared/webhooks/'],
  ['shared/runtime/'],
  ['functions/', 'infra/'],
  ['scripts/', 'bench/'],
];
const layerOf = (file: string): number => LAYERS.findIndex((prefixes) => prefixes.some((p) => file.startsWith(p)));

describe('the import graph', () => {
  it('reads the sources it checks (the test would pass vacuously on an empty graph)', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(graph.get('shared/usecases/payments/create-payment.ts')?.some((f) => f.startsWith('shared/domain/'))).toBe(true);
  });

  it('has no import circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('finds a circle where there is one', () => {
    const sample = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circles(sample)).toEqual([['a', 'b', 'c']]);
  });

  it('has no import running back up a layer (use cases know their ports, never their adapters; infra never imports scripts)', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => layerOf(file) >= 0 && layerOf(t) > layerOf(file)).map((t) => `${file} -> ${t}`),
    );
    expect(upward).toEqual([]);
  });

  it(`keeps every source file within ${MAX_LINES} lines (a generated file excepted: it says so in its first lines)`, () => {
    const generated = (text: string) => /^\/\*\*\n \* This file was auto-generated by /.test(text);
    const long = files.filter((f) => {
      const text = readFileSync(join(ROOT, f), 'utf8');
      return !generated(text) && text.split('\n').length > MAX_LINES;
    });
    expect(long).toEqual([]);
  });
});
