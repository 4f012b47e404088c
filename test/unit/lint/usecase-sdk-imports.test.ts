import { ESLint } from 'eslint';
import { join } from 'node:path';

/**
 * The lint rule of eslint.config.js that keeps SDK values out of the use cases: `ethers`, `tronweb`, `@solana/*` and
 * the AWS SDK may be imported as types in shared/usecases, never as values; the chain layer (shared/chain) may.
 */
const root = join(import.meta.dirname, '..', '..', '..');
const eslint = new ESLint({ cwd: root, overrideConfigFile: join(root, 'eslint.config.js') });

async function restrictedImports(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  return (result?.messages ?? []).filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
}

describe('no SDK value in shared/usecases', () => {
  it.each([
    ['ethers', "import { Interface } from 'ethers';\nexport const i = new Interface([]);\n"],
    ['tronweb', "import { TronWeb } from 'tronweb';\nexport const t = TronWeb;\n"],
    ['@solana/web3.js', "import { PublicKey } from '@solana/web3.js';\nexport const k = PublicKey;\n"],
    ['@aws-sdk/client-kms', "import { KMSClient } from '@aws-sdk/client-kms';\nexport const c = new KMSClient({});\n"],
  ])('reports a value import of %s', async (name, code) => {
    const messages = await restrictedImports(code, 'shared/usecases/payments/snippet.ts');
    expect(messages).toEqual([expect.stringContaining('No SDK value in a use case')]);
    expect(messages[0]).toContain(`'${name}'`);
  });

  it('lets a type import through, and the chain layer import values', async () => {
    const typeOnly = "import type { Signer } from 'ethers';\nexport type S = Signer;\n";
    expect(await restrictedImports(typeOnly, 'shared/usecases/payments/snippet.ts')).toEqual([]);
    const inlineType = "import { type Signer } from 'ethers';\nexport type S = Signer;\n";
    expect(await restrictedImports(inlineType, 'shared/usecases/custody/snippet.ts')).toEqual([]);
    const value = "import { Interface } from 'ethers';\nexport const i = new Interface([]);\n";
    expect(await restrictedImports(value, 'shared/chain/evm/snippet.ts')).toEqual([]);
  });
});
