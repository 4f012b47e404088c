/**
 * `npm run build:contracts [-- --force]`: compiles contracts/**\/*.sol into contracts/build/ (infra/contracts/build.ts,
 * which says how and why the settings are pinned). Nothing is compiled when the previous build is up to date.
 */
import { buildContracts } from '../infra/contracts/build.js';

buildContracts({ force: process.argv.includes('--force'), log: (m) => console.log(m) }).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
