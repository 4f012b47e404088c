import { ESLint } from 'eslint';
import { join } from 'node:path';

/**
 * The lint rules of eslint.config.js that keep adapters out of the use cases: `ethers`, `tronweb`, `@solana/*` and
 * the AWS SDK may be imported as types in shared/usecases, never as values (the chain layer, shared/chain, may); the
 * gateway's own adapters (store, chain, queue, senders) not at all, since they implement the use cases' ports.
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

describe('no adapter in shared/usecases', () => {
  it.each([
    ['a store type', "import type { Key } from '../../store/keys.js';\nexport type K = Key;\n"],
    ['a chain value', "import { sweepCallData } from '../../chain/evm/factory-calls.js';\nexport const s = sweepCallData;\n"],
    ['a chain type', "import type { DepositSource } from '../../chain/evm/deposit-source.js';\nexport type D = DepositSource;\n"],
  ])('reports %s, as a use case declares its ports and the adapters implement them', async (_what, code) => {
    expect(await restrictedImports(code, 'shared/usecases/payments/snippet.ts')).toEqual([expect.stringContaining('import no adapter')]);
  });

  it('lets a use case import the domain and other use cases', async () => {
    const code =
      "import type { PaymentState } from '../../domain/payments.js';\nimport type { DepositSource } from '../deposits/ports.js';\nexport type P = PaymentState | DepositSource;\n";
    expect(await restrictedImports(code, 'shared/usecases/payments/snippet.ts')).toEqual([]);
  });
});
