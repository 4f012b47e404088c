import type { CfnElement } from 'aws-cdk-lib';
import { API_FUNCTIONS, QUEUES, WORKER_FUNCTIONS } from '../../infra/definition.js';
import type { WorkerFunction } from '../../infra/definition.js';
import type { GatewayDefinition } from '../../infra/cdk/gateway-stack.js';
import { buildStack, envRef, outputRef, props, referencedIds, resources, roleOf, statements } from './support.js';

/**
 * Custody on Solana in the stack: the custody API makes the per-address Ed25519 keys (SolanaKeys.grantCreate), the
 * workers marked `solanaKeys: 'sign'` (the custody-solana worker, which sends SOL withdrawals) sign with them and
 * with the platform's fee payer key (made where Solana is configured), and SOLANA_RPC_URL and
 * SOLANA_FEE_PAYER_KEY_ID reach the functions when the deployment names a Solana endpoint.
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

test('only the workers marked as the Solana signer may Sign with the Ed25519 keys; no other function makes or deletes them', () => {
  expect(poller.solanaKeys).toBe('sign');
  for (const name of ['custody-signer', 'custody-solana']) expect([...new Set(kmsActionsOf(name))]).toEqual(['kms:GetPublicKey', 'kms:Sign']);
  for (const name of ['payments', 'custody-solana']) {
    expect(kmsActionsOf(name)).not.toContain('kms:CreateKey');
    expect(kmsActionsOf(name)).not.toContain('kms:ScheduleKeyDeletion');
  }
  expect(kmsActionsOf('payments')).not.toContain('kms:Sign');
});

test('the Solana fee payer is a retained Ed25519 signing key, usable (Sign, GetPublicKey) by the Solana signers only, its id given to every function', () => {
  const feePayer = outputRef(template, 'SolanaFeePayerKeyId');
  const key = resources(template, 'AWS::KMS::Key')[feePayer];
  expect(key?.Properties).toMatchObject({ KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY' });
  expect([key?.DeletionPolicy, key?.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
  const onKey = statements(template).filter((s) => referencedIds(s.resource).has(feePayer));
  expect(new Set(onKey.flatMap((s) => s.roles))).toEqual(new Set(['custody-signer', 'custody-solana'].map((n) => roleOf(template, functionId(n)))));
  expect([...new Set(onKey.flatMap((s) => s.actions))].sort()).toEqual(['kms:GetPublicKey', 'kms:Sign']);
  for (const name of ['custody', 'payments', 'custody-solana']) expect(envRef(template, functionId(name), 'SOLANA_FEE_PAYER_KEY_ID')).toBe(feePayer);
});

test('no fee payer key where the deployment does not reach Solana', () => {
  const plain = buildStack(definition).template;
  expect(Object.values(resources(plain, 'AWS::KMS::Key')).filter((k) => k.Properties?.KeySpec === 'ECC_NIST_EDWARDS25519')).toEqual([]);
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
