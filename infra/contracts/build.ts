/**
 * Compiles contracts/**\/*.sol with the npm `solc` (standard JSON) into contracts/build/<Name>.json
 * ({ contractName, sourceName, abi, bytecode, deployedBytecode }).
 *
 * `npm run build:contracts [-- --force]` runs it (scripts/build-contracts.ts); `npm start` calls it before the local
 * stack deploys the contracts (infra/local/main.ts). Idempotent and fast: a hash of the compiler version, the
 * settings and every source is kept in contracts/build/.build-hash; when it matches, nothing is compiled (and
 * solc, a large module, is not even loaded).
 *
 * Settings are pinned because the bytecode decides the factory address and so every deposit address:
 * - evmVersion `paris` (no PUSH0): runs on every EVM chain we may target (older L2s, BSC, TRON's TVM) and anvil;
 * - optimizer on, 200 runs;
 * - no CBOR metadata appended (`appendCBOR: false`): the metadata hash covers comments and file paths, and a
 *   comment edit must not move the factory.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Bump when the artifact format or this build's behaviour changes, to invalidate old builds. */
const FORMAT_VERSION = 1;

export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'paris',
  metadata: { appendCBOR: false },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const;

export interface BuildOptions {
  /** Directory holding the .sol sources (default: <repo>/contracts). */
  contractsDir?: string;
  /** Output directory (default: <contractsDir>/build). */
  outDir?: string;
  /** Compile even when the hash matches. */
  force?: boolean;
  log?: (message: string) => void;
}

export interface BuildResult {
  /** false when the previous build was up to date. */
  compiled: boolean;
  outDir: string;
  contracts: string[];
  hash: string;
}

interface SolcOutputContract {
  abi: unknown[];
  evm: { bytecode: { object: string }; deployedBytecode: { object: string } };
}
interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, SolcOutputContract>>;
}

async function listSources(dir: string, outDir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) {
        if (full !== outDir && entry.name !== 'node_modules') await walk(full);
      } else if (entry.isFile() && entry.name.endsWith('.sol')) {
        found.push(full);
      }
    }
  };
  await walk(dir);
  return found.sort();
}

function solcVersion(): string {
  const require = createRequire(import.meta.url);
  const pkg = require('solc/package.json') as { version: string };
  return pkg.version;
}

async function writeAtomic(file: string, content: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, content);
  await rename(tmp, file);
}

export async function buildContracts(options: BuildOptions = {}): Promise<BuildResult> {
  const contractsDir = options.contractsDir ?? join(ROOT, 'contracts');
  const outDir = options.outDir ?? join(contractsDir, 'build');
  const log = options.log ?? (() => undefined);

  const files = await listSources(contractsDir, outDir);
  if (files.length === 0) throw new Error(`No Solidity sources under ${contractsDir}`);
  const sources: Record<string, { content: string }> = {};
  for (const file of files) {
    // Source unit names are paths relative to contracts/, with forward slashes, so `import "./x.sol"` resolves.
    sources[relative(contractsDir, file).split(sep).join('/')] = { content: await readFile(file, 'utf8') };
  }
  const input = { language: 'Solidity', sources, settings: SOLC_SETTINGS };
  const hash = createHash('sha256')
    .update(JSON.stringify({ format: FORMAT_VERSION, solc: solcVersion(), input }))
    .digest('hex');

  const hashFile = join(outDir, '.build-hash');
  const previous = await readFile(hashFile, 'utf8').catch(() => '');
  if (!options.force && previous.trim() === hash) {
    const names = JSON.parse(await readFile(join(outDir, '.contracts.json'), 'utf8').catch(() => 'null')) as string[] | null;
    if (names) {
      log(`contracts up to date (${names.length} artifacts in ${relative(ROOT, outDir) || outDir})`);
      return { compiled: false, outDir, contracts: names, hash };
    }
  }

  // solc is loaded only when something has to be compiled: importing it parses a large emscripten module.
  const { default: solc } = await import('solc');
  const compile: (input: string, callbacks?: { import: (path: string) => { contents?: string; error?: string } }) => string = solc.compile;
  const findImports = (path: string): { contents?: string; error?: string } => {
    const require = createRequire(import.meta.url);
    try {
      // Only packages (e.g. `@openzeppelin/...`) reach here; local files are all in `sources`.
      return { contents: readFileSync(require.resolve(path), 'utf8') };
    } catch {
      return { error: `File not found: ${path}` };
    }
  };
  const output = JSON.parse(compile(JSON.stringify(input), { import: findImports })) as SolcOutput;
  const problems = output.errors ?? [];
  const errors = problems.filter((e) => e.severity === 'error');
  for (const warning of problems.filter((e) => e.severity !== 'error')) log(warning.formattedMessage);
  if (errors.length > 0) {
    throw new Error(`Solidity compilation failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }

  await mkdir(outDir, { recursive: true });
  const names: string[] = [];
  for (const [sourceName, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [contractName, c] of Object.entries(contracts)) {
      if (names.includes(contractName)) throw new Error(`Two contracts are named ${contractName}`);
      names.push(contractName);
      const artifact = {
        contractName,
        sourceName,
        abi: c.abi,
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
        compiler: { version: solc.version() as string, settings: SOLC_SETTINGS },
      };
      await writeAtomic(join(outDir, `${contractName}.json`), `${JSON.stringify(artifact, null, 2)}\n`);
    }
  }
  names.sort();
  await writeAtomic(join(outDir, '.contracts.json'), `${JSON.stringify(names)}\n`);
  // Written last: an interrupted build never looks up to date.
  await writeAtomic(hashFile, `${hash}\n`);
  log(`compiled ${names.length} contracts with solc ${solc.version() as string} into ${relative(ROOT, outDir) || outDir}`);
  return { compiled: true, outDir, contracts: names, hash };
}
