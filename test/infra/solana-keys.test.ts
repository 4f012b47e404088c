import { App, Stack } from 'aws-cdk-lib';
import type { CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SolanaKeys } from '../../infra/cdk/constructs/solana-keys.js';
import { SOLANA_KEY_PURPOSE, SOLANA_KEY_TAGS, solanaKeyTags } from '../../shared/chain/signer/ed25519-keys.js';
import { CDK_CONTEXT, roleOf } from './support.js';

/** Custody's Solana keys: created at run time by the custody functions, within grants that allow nothing else. */
const app = new App({ context: CDK_CONTEXT });
const stack = new Stack(app, 'SolanaKeysTest', { env: { account: '111122223333', region: 'eu-west-1' } });
const keys = new SolanaKeys(stack, 'SolanaKeys', { stage: 'prod' });
const dummy = (id: string) =>
  new LambdaFunction(stack, id, { runtime: Runtime.NODEJS_22_X, handler: 'index.handler', code: Code.fromInline('exports.handler = async () => {};') });
const addresses = dummy('CustodyAddresses');
const signer = dummy('CustodySigner');
keys.grantCreate(addresses);
keys.grantSign(signer);
const template = Template.fromStack(stack);

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

const KEYS_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/*';
const functionId = (fn: LambdaFunction): string => stack.getLogicalId(fn.node.defaultChild as CfnElement);

/** Every statement of the policies attached to a function's role. */
function statementsOf(fn: LambdaFunction): Statement[] {
  const role = roleOf(template, functionId(fn));
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) => {
    const properties = (policy as { Properties: { Roles: { Ref: string }[]; PolicyDocument: { Statement: Statement[] } } }).Properties;
    return properties.Roles.some((r) => r.Ref === role) ? properties.PolicyDocument.Statement : [];
  });
}

const actionsOf = (statements: Statement[]): string[] => statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])).sort();
const withAction = (statements: Statement[], action: string): Statement[] =>
  statements.filter((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]).includes(action));

const taggedForTheGateway = {
  [`aws:ResourceTag/${SOLANA_KEY_TAGS.purpose}`]: SOLANA_KEY_PURPOSE,
  [`aws:ResourceTag/${SOLANA_KEY_TAGS.stage}`]: 'prod',
  'kms:KeySpec': 'ECC_NIST_EDWARDS25519',
  'kms:KeyUsage': 'SIGN_VERIFY',
};

describe('SolanaKeys grants', () => {
  it('creates no key itself: keys are made per custody address at run time', () => {
    expect(template.findResources('AWS::KMS::Key')).toEqual({});
  });

  it('lets the address maker create only tagged, single-Region Ed25519 signing keys made by KMS', () => {
    const statements = statementsOf(addresses);
    expect(statements.every((s) => s.Effect === 'Allow')).toBe(true);
    expect(actionsOf(statements)).toEqual(['kms:CreateKey', 'kms:GetPublicKey', 'kms:ScheduleKeyDeletion', 'kms:TagResource']);
    expect(withAction(statements, 'kms:CreateKey')).toEqual([
      {
        Effect: 'Allow',
        Action: 'kms:CreateKey',
        Resource: '*',
        Condition: {
          StringEquals: {
            'kms:KeySpec': 'ECC_NIST_EDWARDS25519',
            'kms:KeyUsage': 'SIGN_VERIFY',
            'kms:KeyOrigin': 'AWS_KMS',
            [`aws:RequestTag/${SOLANA_KEY_TAGS.purpose}`]: SOLANA_KEY_PURPOSE,
            [`aws:RequestTag/${SOLANA_KEY_TAGS.stage}`]: 'prod',
          },
          Bool: { 'kms:MultiRegion': 'false' },
          'ForAllValues:StringEquals': { 'aws:TagKeys': [SOLANA_KEY_TAGS.purpose, SOLANA_KEY_TAGS.stage, SOLANA_KEY_TAGS.account] },
        },
      },
    ]);
    // Tagging at creation needs TagResource on the account's keys: only the gateway's tag keys and values.
    expect(withAction(statements, 'kms:TagResource')).toEqual([
      expect.objectContaining({
        Resource: KEYS_ARN,
        Condition: {
          StringEquals: { [`aws:RequestTag/${SOLANA_KEY_TAGS.purpose}`]: SOLANA_KEY_PURPOSE, [`aws:RequestTag/${SOLANA_KEY_TAGS.stage}`]: 'prod' },
          'ForAllValues:StringEquals': { 'aws:TagKeys': Object.values(SOLANA_KEY_TAGS) },
        },
      }),
    ]);
    expect(withAction(statements, 'kms:GetPublicKey')).toEqual([
      expect.objectContaining({ Resource: KEYS_ARN, Condition: { StringEquals: taggedForTheGateway } }),
    ]);
    // A key made by a call that lost the race to store the account's address is scheduled for deletion: only the
    // gateway's tagged Ed25519 keys of its stage.
    expect(withAction(statements, 'kms:ScheduleKeyDeletion')).toEqual([
      expect.objectContaining({ Effect: 'Allow', Resource: KEYS_ARN, Condition: { StringEquals: taggedForTheGateway } }),
    ]);
  });

  it('lets the signer Sign (Ed25519 over RAW messages) and GetPublicKey only on the tagged Ed25519 keys of its stage', () => {
    const statements = statementsOf(signer);
    expect(actionsOf(statements)).toEqual(['kms:GetPublicKey', 'kms:Sign']);
    expect(withAction(statements, 'kms:Sign')).toEqual([
      {
        Effect: 'Allow',
        Action: 'kms:Sign',
        Resource: KEYS_ARN,
        Condition: { StringEquals: { ...taggedForTheGateway, 'kms:SigningAlgorithm': 'ED25519_SHA_512', 'kms:MessageType': 'RAW' } },
      },
    ]);
    expect(withAction(statements, 'kms:GetPublicKey')).toEqual([
      expect.objectContaining({ Resource: KEYS_ARN, Condition: { StringEquals: taggedForTheGateway } }),
    ]);
  });

  it('grants nothing broader anywhere: no kms:* wildcard, no unconditioned KMS action, no key administration', () => {
    const all = [...statementsOf(addresses), ...statementsOf(signer)];
    const actions = actionsOf(all);
    expect(actions.some((a) => a.includes('*'))).toBe(false);
    expect(actionsOf(statementsOf(signer))).not.toContain('kms:ScheduleKeyDeletion');
    for (const forbidden of [
      'kms:Decrypt',
      'kms:Verify',
      'kms:UntagResource',
      'kms:CancelKeyDeletion',
      'kms:DeleteImportedKeyMaterial',
      'kms:PutKeyPolicy',
      'kms:CreateGrant',
      'kms:DescribeKey',
    ]) {
      expect(actions).not.toContain(forbidden);
    }
    for (const s of all.filter((x) => actionsOf([x]).some((a) => a.startsWith('kms:')))) expect(s.Condition).toBeDefined();
    // The two functions do not share each other's rights.
    expect(actionsOf(statementsOf(signer))).not.toContain('kms:CreateKey');
    expect(actionsOf(statementsOf(addresses))).not.toContain('kms:Sign');
    template.hasResourceProperties('AWS::IAM::Policy', { PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'kms:Sign' })]) } });
  });

  it('the tags the custody functions create keys with are the ones the grants require', () => {
    expect(solanaKeyTags({ stage: 'prod', custodyAccountId: 'acc-1' })).toEqual([
      { TagKey: SOLANA_KEY_TAGS.purpose, TagValue: SOLANA_KEY_PURPOSE },
      { TagKey: SOLANA_KEY_TAGS.stage, TagValue: 'prod' },
      { TagKey: SOLANA_KEY_TAGS.account, TagValue: 'acc-1' },
    ]);
    expect(solanaKeyTags({ stage: keys.stage }).map((t) => t.TagKey)).toEqual([SOLANA_KEY_TAGS.purpose, SOLANA_KEY_TAGS.stage]);
  });
});
