/**
 * Makes sure a Chromium the browser tests can drive is on the machine (a pre-test step, like
 * `playwright install --with-deps`, but from Debian's packages: nothing is downloaded from elsewhere).
 *
 * Run: `tsx scripts/ensure-chromium.ts`.
 * - CHROMIUM_PATH (or /usr/bin/chromium) runs `--version` and a font is installed: print the version, exit 0.
 * - Otherwise, as root with apt-get: `apt-get update` and `apt-get install --no-install-recommends chromium
 *   fonts-liberation` (no recommends keeps the install small, but may leave no font at all: pages would render
 *   without text), then check again.
 * - Otherwise: exit 1, saying what to install.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';

const DEFAULT_PATH = '/usr/bin/chromium';
const PACKAGES = ['chromium', 'fonts-liberation'];
const FONT_DIR = '/usr/share/fonts';

const log = (message: string) => console.log(`ensure-chromium: ${message}`);

/** The first line of `<path> --version`, or null when it is missing or does not run. */
function chromiumVersion(path: string): string | null {
  if (!existsSync(path)) return null;
  const result = spawnSync(path, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  return result.status === 0 ? (result.stdout.trim().split('\n')[0] ?? '') : null;
}

function hasFont(): boolean {
  if (!existsSync(FONT_DIR)) return false;
  return readdirSync(FONT_DIR, { recursive: true, encoding: 'utf8' }).some((file) => /\.(ttf|otf|ttc|pfb)$/i.test(file));
}

/** Runs an apt-get command with no stdin, printing a line per 20 packages unpacked, and its output's tail on failure. */
async function aptGet(args: string[]): Promise<void> {
  const child = spawn('apt-get', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  const tail: string[] = [];
  let unpacked = 0;
  const onLine = (line: string) => {
    tail.push(line);
    if (tail.length > 30) tail.shift();
    if (line.startsWith('Unpacking ') && ++unpacked % 20 === 0) log(`  ${unpacked} packages unpacked`);
  };
  createInterface({ input: child.stdout }).on('line', onLine);
  createInterface({ input: child.stderr }).on('line', onLine);
  const code = await new Promise<number | null>((resolve, reject) => child.on('error', reject).on('close', resolve));
  if (code !== 0) throw new Error(`apt-get ${args.join(' ')} exited with ${code}:\n${tail.join('\n')}`);
}

async function main(): Promise<number> {
  const custom = process.env.CHROMIUM_PATH;
  const path = custom ?? DEFAULT_PATH;
  const version = chromiumVersion(path);
  if (version !== null && hasFont()) {
    log(`${version} at ${path}`);
    return 0;
  }
  if (custom !== undefined && version === null) {
    console.error(`ensure-chromium: CHROMIUM_PATH=${custom} does not run \`--version\`; point it at a Chromium or Chrome binary.`);
    return 1;
  }
  const missing = version === null ? 'Chromium' : 'a font';
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) {
    console.error(
      `ensure-chromium: ${missing} is missing, and installing it needs root and apt-get. Run\n` +
        `  sudo apt-get install -y --no-install-recommends ${PACKAGES.join(' ')}\n` +
        `or set CHROMIUM_PATH to a Chromium or Chrome binary (a font must be installed too, or pages render without text).`,
    );
    return 1;
  }
  const started = Date.now();
  log(`${missing} is missing: installing ${PACKAGES.join(' ')} from Debian's packages (about a minute)`);
  await aptGet(['update', '-q']);
  await aptGet(['install', '-y', '-q', '--no-install-recommends', ...PACKAGES]);
  const installed = chromiumVersion(path);
  if (installed === null || !hasFont()) {
    console.error(`ensure-chromium: apt-get finished, but ${installed === null ? `${path} --version does not run` : `no font is in ${FONT_DIR}`}.`);
    return 1;
  }
  log(`${installed} at ${path}, installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return 0;
}

process.exitCode = await main();
