/**
 * Reads the compiled contracts written by `scripts/build-contracts.ts` (contracts/build/<Name>.json). The build
 * output is not committed: run `npm run build:contracts` (or `tsx scripts/build-contracts.ts`) first.
 *
 * Runtime code that only talks to deployed contracts does not need artifacts: it uses the ABIs in `abi.ts`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonFragment } from 'ethers';

export interface ContractArtifact {
  contractName: string;
  sourceName: string;
  abi: JsonFragment[];
  /** Creation code, 0x-hex (constructor arguments not included). */
  bytecode: string;
  /** Runtime code, 0x-hex. */
  deployedBytecode: string;
}

export type ContractName = 'BatchPayout' | 'BlocklistToken' | 'Forwarder' | 'ForwarderFactory' | 'TestToken';

/** contracts/build of this repository, or `$CONTRACTS_BUILD_DIR`. */
export function contractsBuildDir(): string {
  return process.env.CONTRACTS_BUILD_DIR ?? join(resolve(dirname(fileURLToPath(import.meta.url)), '../../..'), 'contracts', 'build');
}

const cache = new Map<string, ContractArtifact>();

export class ArtifactNotFoundError extends Error {
  readonly code = 'ARTIFACT_NOT_FOUND';
  constructor(name: string, file: string, options?: { cause?: unknown }) {
    super(`Contract artifact ${name} not found at ${file}: run npm run build:contracts (tsx scripts/build-contracts.ts)`, options);
    this.name = 'ArtifactNotFoundError';
  }
}

export function loadArtifact(name: ContractName | string): ContractArtifact {
  const file = join(contractsBuildDir(), `${name}.json`);
  const cached = cache.get(file);
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ArtifactNotFoundError(name, file, { cause: error });
  }
  const artifact = JSON.parse(text) as ContractArtifact;
  if (!artifact.bytecode || !Array.isArray(artifact.abi)) throw new Error(`${file} is not a contract artifact`);
  cache.set(file, artifact);
  return artifact;
}
