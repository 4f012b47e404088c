/**
 * `npm start`: the whole gateway on this machine (design section 8). Builds the contracts, starts the local
 * stack with its state in `.local/`, prints where the API is and what to run next, and stops every child
 * process on Ctrl-C.
 *
 *   npm start                 # data persists in .local/ across restarts
 *   npm start -- --fresh      # wipe .local/ first
 *   PORT=8080 npm start       # another API port (default 3000)
 *
 * GATEWAY_LOCAL_DIR moves the data dir (default .local/; the operator CLI reads the same variable).
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { NETWORKS } from '../../shared/domain/currencies.js';
import { DEFAULT_BLOCK_TIME_SECONDS, DEFAULT_DATA_DIR, LocalStackSetupError, REPO_ROOT, createLogger, localChainId, startStack } from './stack.js';
import type { LogLevel, StackHandle } from './stack.js';

const HELP = `Usage: npm start -- [--fresh] [--no-chain] [--verbose | --quiet]

Runs the payment gateway locally: DynamoDB Local (needs Java 17+), an SQS server, a KMS endpoint, an S3 server,
one local EVM chain (anvil) per EVM network with the contracts deployed, a local TRON node, a local Solana
node (litesvm), a local Bitcoin node (regtest, Esplora API), the HTTP API and the workers. One stack per data dir: a second start on the same dir is refused.

  --fresh      wipe the local data (.local/) before starting (refused while a stack runs on it)
  --no-chain   start without the EVM chains and contracts
  --verbose    debug logs
  --quiet      errors only (no request log)
  --help       this text

Environment: PORT (API port, default 3000), GATEWAY_LOCAL_DIR (data dir, default .local/).`;

function banner(stack: StackHandle): string {
  const api = stack.apiUrl ?? '(no HTTP API)';
  const dir = relative(process.cwd(), stack.dataDir) || '.';
  const stackFile = join(dir, 'stack.json');
  const lines = ['', 'Payment gateway is running locally.', `  API            ${api}`, `  stack.json     ${stackFile}`];
  for (const [network, url] of Object.entries(stack.stackJson.rpcUrls)) {
    const definition = NETWORKS[network as keyof typeof NETWORKS];
    const what =
      definition.family === 'evm'
        ? `chain id ${localChainId(definition)}, a block every ${DEFAULT_BLOCK_TIME_SECONDS} s`
        : definition.family === 'sol'
          ? `Solana JSON-RPC (litesvm), a block every 0.4 s, USDT mint ${stack.solana?.mint ?? '-'}`
          : definition.family === 'btc'
            ? `Bitcoin regtest behind the Esplora API, a block every 2 s, faucet ${stack.btc?.chain.faucet.address ?? '-'}`
            : 'TronGrid-compatible API, a block every 3 s';
    lines.push(`  chain ${network.padEnd(8)} ${url} (${what})`);
  }
  lines.push(`  S3             ${stack.stackJson.s3Url} (bucket ${stack.stackJson.exportBucket}: transaction exports)`);
  lines.push(
    '',
    'Next, in another terminal:',
    '  npm run gateway -- tenant create --name "Acme" --json',
    `  API=${api}`,
    '  curl -s -X POST $API/o/token/ -d grant_type=client_credentials -d client_id=<client_id> -d client_secret=<client_secret>',
    '',
    `Data persists in ${dir}/ across restarts (npm start -- --fresh wipes it). Ctrl-C stops everything.`,
    '',
  );
  return lines.join('\n');
}

async function buildContractsIfPresent(log: (line: string) => void): Promise<void> {
  if (!existsSync(join(REPO_ROOT, 'contracts'))) return;
  try {
    const { buildContracts } = await import('../contracts/build.js');
    await buildContracts({ log: (line) => log(`contracts: ${line}`) });
  } catch (error) {
    // The API works without contracts; deployment will report what is missing.
    log(`contracts: build failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      fresh: { type: 'boolean', default: false },
      'no-chain': { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const logLevel: LogLevel = values.verbose ? 'debug' : values.quiet ? 'error' : 'info';
  const log = createLogger(logLevel);
  const chain = !values['no-chain'];

  if (chain) await buildContractsIfPresent(log.info);
  const dataDir = process.env.GATEWAY_LOCAL_DIR ? resolve(process.env.GATEWAY_LOCAL_DIR) : DEFAULT_DATA_DIR;
  const stack = await startStack({
    dataDir,
    fresh: values.fresh,
    parts: { anvil: chain, contracts: chain },
    logLevel,
    logRequests: logLevel !== 'error',
  });
  process.stdout.write(banner(stack));

  return new Promise<number>((done) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) {
        // A second Ctrl-C: do not wait any longer (children are still killed on exit).
        log.error(`${signal} again: exiting now`);
        done(1);
        return;
      }
      stopping = true;
      log.info(`${signal}: stopping`);
      stack.stop().then(
        () => done(0),
        (error: unknown) => {
          log.error(`stop failed: ${error instanceof Error ? error.message : String(error)}`);
          done(1);
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof LocalStackSetupError) {
      process.stderr.write(`${error.message}\n`);
    } else if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${error.message}\n\n${HELP}\n`);
    } else {
      process.stderr.write(`The local stack failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    process.exit(1);
  },
);
