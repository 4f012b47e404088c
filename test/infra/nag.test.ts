import type { PolicyValidationPluginReport } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { buildStack, PROD_STAGE } from './support.js';

/**
 * AWS's best-practice rule packs (cdk-nag: AwsSolutions and Serverless) on the production stack with every chain
 * configured, so every function, queue and key exists. A finding is either fixed in the stack or acknowledged, with
 * its reason, on the narrowest construct it concerns (infra/cdk); none may be left unanswered.
 */
const { stack } = buildStack(undefined, {
  stage: PROD_STAGE,
  evmRpcUrls: { ETH: 'https://eth.example/rpc' },
  chains: {
    forwarderFactories: { ETH: '0x1111111111111111111111111111111111111111', TRX: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
    forwarderImplementationTrx: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
    tronApiUrl: 'https://api.trongrid.io',
    btcApiUrl: 'https://esplora.example/api',
    solanaRpcUrl: 'https://solana.example/rpc',
    tokenContracts: { USDTERC20: '0x2222222222222222222222222222222222222222' },
    withdrawalBatchContract: '0x3333333333333333333333333333333333333333',
  },
});

interface Finding {
  readonly rule: string;
  readonly severity: string;
  readonly path: string;
}

const findings = (report: PolicyValidationPluginReport): Finding[] =>
  report.violations.flatMap((v) => v.violatingResources.map((r) => ({ rule: v.ruleName, severity: v.severity ?? 'error', path: r.constructPath ?? '?' })));

/** Findings grouped by rule id, each with its count and constructs, for the failure message. */
function grouped(list: readonly Finding[]): string {
  const byRule = new Map<string, Finding[]>();
  for (const f of list) byRule.set(f.rule, [...(byRule.get(f.rule) ?? []), f]);
  return [...byRule.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([rule, fs]) => `${rule} (${fs[0]?.severity}, ${fs.length}):\n${fs.map((f) => `  ${f.path}`).join('\n')}`)
    .join('\n');
}

test.each([
  ['AwsSolutions', new AwsSolutionsChecks(stack)],
  ['Serverless', new ServerlessChecks(stack)],
])('the %s pack finds nothing unanswered, errors or warnings', (_name, pack) => {
  const list = findings(pack.validateScope(stack));
  expect(grouped(list)).toBe('');
  expect(list).toHaveLength(0);
});

// `cdk deploy` synthesises in the account's region (the CLI's environment), where ARNs name it: the same packs run
// there at every synth (infra/cdk/app.ts), so the acknowledgements must hold for a concrete environment too.
const inRegion = buildStack(undefined, {
  stage: PROD_STAGE,
  env: { account: '123456789012', region: 'eu-west-1' },
  chains: { solanaRpcUrl: 'https://solana.example/rpc', forwarderFactories: { ETH: '0x1111111111111111111111111111111111111111' } },
}).stack;

test.each([
  ['AwsSolutions', new AwsSolutionsChecks(inRegion)],
  ['Serverless', new ServerlessChecks(inRegion)],
])('the %s pack finds nothing unanswered in a stack with a concrete account and region', (_name, pack) => {
  expect(grouped(findings(pack.validateScope(inRegion)))).toBe('');
});
