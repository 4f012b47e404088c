import type { CfnElement } from 'aws-cdk-lib';
import { API_FUNCTIONS, QUEUES, WORKER_FUNCTIONS } from '../../infra/definition.js';
import type { WorkerFunction } from '../../infra/definition.js';
import type { GatewayDefinition } from '../../infra/cdk/gateway-stack.js';
import { buildStack, props, resources, roleOf, statements } from './support.js';

/**
 * Custody on Solana in the stack: the custody API makes the per-address Ed25519 keys (SolanaKeys.grantCreate), a
 * worker marked `solanaKeys: 'sign'` signs with them, the custody-solana poller runs every minute with no KMS
 * right at all, and SOLANA_RPC_URL reaches the functions when the deployment names one.
 */
const custodyApi = API_FUNCTIONS.find((f) => f.name === 'custody');
const poller = WORKER_FUNCTIONS.find((w) => w.name === 'custody-solana');
const other = API_FUNCTIONS.find((f) => f.name === 'payments');
if (!custodyApi || !poller || !other) throw new Error('custody, payments or custody-solana is missing from infra/definition.ts');
const signer: WorkerFunction = {
  name: 'custody-signer',
  entry: 'functions/chain-tx/handler.ts',
  trigger: { kind: 'queue', queue: 'transfers', batchSize: 1 },
  timeoutSeconds: 60,
  solanaKeys: 'sign',
};
const definition: GatewayDefinition = { api: [custodyApi, other], workers: [poller, signer], queues: QUEUES };
const { stack, template } = buildStack(definition, { chains: { solanaRpcUrl: 'https://solana.example/rpc' } });

const functionId = (name: string): string => {
  const fn = stack.functions.get(name);
  if (!fn) throw new Error(`No function ${name}`);
  return stack.getLogicalId(fn.node.defaultChild as CfnElement);
};
const kmsActionsOf = (name: string): string[] =>
  statements(template)
    .filter((s) => s.roles.includes(roleOf(template, functionId(name))))
    .flatMap((s) => s.actions.filter((a) => a.startsWith('kms:')))
    .sort();

test('the custody API makes Solana keys and reads their addresses, and discards the ones that lost a race; it signs nothing with them', () => {
  const actions = kmsActionsOf('custody');
  for (const action of ['kms:CreateKey', 'kms:TagResource', 'kms:GetPublicKey', 'kms:ScheduleKeyDeletion']) expect(actions).toContain(action);
  expect(actions).not.toContain('kms:Sign');
});

test('only the worker marked as the Solana signer may Sign with the Ed25519 keys; no other function makes or deletes them', () => {
  expect(kmsActionsOf('custody-signer')).toEqual(['kms:GetPublicKey', 'kms:Sign']);
  for (const name of ['payments', 'custody-solana']) {
    expect(kmsActionsOf(name)).not.toContain('kms:CreateKey');
    expect(kmsActionsOf(name)).not.toContain('kms:ScheduleKeyDeletion');
  }
  // The poller reads chains and the table only.
  expect(
    kmsActionsOf('custody-solana').filter((a) => a !== 'kms:Decrypt' && a !== 'kms:Encrypt' && !a.startsWith('kms:GenerateDataKey') && a !== 'kms:ReEncrypt*'),
  ).toEqual([]);
});

test('the custody-solana poller runs every minute with a timeout past its polling budget', () => {
  const rules = Object.values(resources(template, 'AWS::Events::Rule')).map((r) => r.Properties ?? {});
  expect(rules.map((r) => r.ScheduleExpression)).toContain('rate(1 minute)');
  expect(props(template, functionId('custody-solana'))).toMatchObject({ Timeout: 75 });
});

test('SOLANA_RPC_URL reaches the functions', () => {
  const env = (props(template, functionId('custody')).Environment as { Variables: Record<string, unknown> }).Variables;
  expect(env.SOLANA_RPC_URL).toBe('https://solana.example/rpc');
});
