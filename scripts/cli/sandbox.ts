/** `sandbox deploy-evm`: the gateway's contracts on a public EVM test network, for a `sandbox` stage (infra/sandbox/evm.ts). */
import { readFileSync } from 'node:fs';
import { json, need, str, UsageError } from './command.js';
import type { CommandGroup, Values } from './command.js';

/** The hot wallet named, or the EVM address of the stack's signing key (its `SigningKeyId` output; AWS credentials). */
async function hotWalletOf(v: Values): Promise<string> {
  const named = v['hot-wallet'];
  const keyId = v['signing-key-id'];
  if ((typeof named === 'string') === (typeof keyId === 'string')) throw new UsageError('give --hot-wallet or --signing-key-id, one of them');
  if (typeof named === 'string') return named;
  const [{ KMSClient }, { KmsSigner }] = await Promise.all([import('@aws-sdk/client-kms'), import('../../shared/chain/signer/kms-signer.js')]);
  const kms = new KMSClient({ region: process.env.AWS_REGION ?? 'us-east-1' });
  try {
    return await new KmsSigner(kms, keyId as string).getAddress();
  } finally {
    kms.destroy();
  }
}

export const sandboxCommands: CommandGroup = {
  'deploy-evm': {
    usage:
      'sandbox deploy-evm --network ETH|POLYGON|BSC|ARB|BASE|OPTIMISM --rpc-url URL --deployer-key-file FILE --hot-wallet 0x…|--signing-key-id KEY_ID --treasury 0x… [--test-tokens] [--mint AMOUNT --mint-to 0x…,0x…] [--json]',
    summary:
      "Deploy (or find) the forwarder factory, the hot wallet's BatchPayout and, with --test-tokens, the catalogue's test tokens on the network's public test network (its chain id is checked), top up --mint-to with test tokens, and print the `cdk deploy` context values.",
    tableFree: true,
    options: {
      network: str,
      'rpc-url': str,
      'deployer-key-file': str,
      'hot-wallet': str,
      'signing-key-id': str,
      treasury: str,
      'test-tokens': { type: 'boolean', default: false },
      mint: str,
      'mint-to': str,
      json,
    },
    run: async (v) => {
      const { deploySandboxEvm, sandboxContext, SandboxError } = await import('../../infra/sandbox/evm.js');
      const keyFile = need(v, 'deployer-key-file');
      let deployerKey: string;
      try {
        deployerKey = readFileSync(keyFile, 'utf8').trim();
      } catch {
        throw new UsageError(`cannot read --deployer-key-file ${keyFile}`);
      }
      if (!/^(0x)?[0-9a-fA-F]{64}$/.test(deployerKey)) throw new UsageError('--deployer-key-file must hold one private key, 64 hex digits');
      const mintTo = typeof v['mint-to'] === 'string' ? v['mint-to'].split(',').filter(Boolean) : [];
      if ((typeof v.mint === 'string') !== mintTo.length > 0) throw new UsageError('--mint and --mint-to go together');
      if (typeof v.mint === 'string' && !/^\d+(\.\d+)?$/.test(v.mint)) throw new UsageError('--mint must be a positive amount of whole tokens');
      if (typeof v.mint === 'string' && v['test-tokens'] !== true) throw new UsageError('--mint needs --test-tokens');
      const hotWallet = await hotWalletOf(v);
      try {
        const deployment = await deploySandboxEvm({
          network: need(v, 'network'),
          rpcUrl: need(v, 'rpc-url'),
          deployerKey: deployerKey.startsWith('0x') ? deployerKey : `0x${deployerKey}`,
          hotWallet,
          treasury: need(v, 'treasury'),
          testTokens: v['test-tokens'] === true,
          ...(typeof v.mint === 'string' ? { mint: { amount: v.mint, to: mintTo } } : {}),
        });
        return { ...deployment, context: sandboxContext([deployment]) };
      } catch (error) {
        if (error instanceof SandboxError) throw new UsageError(error.message);
        throw error;
      }
    },
    text: (r) => {
      const d = r as {
        network: string;
        chainId: number;
        forwarderFactory: string;
        withdrawalBatchContract: string;
        tokenContracts: Record<string, string>;
        context: string[];
      };
      return [
        `${d.network} (chain ${d.chainId}): factory ${d.forwarderFactory}, batch payout ${d.withdrawalBatchContract}`,
        ...Object.entries(d.tokenContracts).map(([code, address]) => `  ${code} ${address}`),
        `context: ${d.context.join(' ')}`,
      ].join('\n');
    },
  },
};
