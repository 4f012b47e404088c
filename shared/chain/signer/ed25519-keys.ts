/**
 * Custody's Solana keys: one Ed25519 KMS key (`ECC_NIST_EDWARDS25519`, `SIGN_VERIFY`) per account address,
 * created at run time. Every key carries the tags below: the IAM grants (infra/cdk/constructs/solana-keys.ts)
 * allow CreateKey only with them and Sign / GetPublicKey only on keys that have them, so a key created any other
 * way is never usable by the gateway's functions, and the gateway's functions can use no other key. The KMS client
 * module is loaded with the first call (the custody API starts without it).
 */
import type { KMSClient } from '@aws-sdk/client-kms';

/** Tag keys on every Solana key (the grants' conditions name them). */
export const SOLANA_KEY_TAGS = {
  purpose: 'payment-gateway:purpose',
  stage: 'payment-gateway:stage',
  /** Optional: the custody account the address belongs to (operations, audits). */
  account: 'payment-gateway:custody-account',
} as const;

/** The value of the purpose tag. */
export const SOLANA_KEY_PURPOSE = 'custody-solana';

export interface SolanaKeyTagsInput {
  /** The deployment's stage (configuration `STAGE`): keys of one stage are out of another's reach. */
  readonly stage: string;
  readonly custodyAccountId?: string;
}

/** The tags to create a Solana key with (CreateKey `Tags`). */
export function solanaKeyTags(input: SolanaKeyTagsInput): { TagKey: string; TagValue: string }[] {
  return [
    { TagKey: SOLANA_KEY_TAGS.purpose, TagValue: SOLANA_KEY_PURPOSE },
    { TagKey: SOLANA_KEY_TAGS.stage, TagValue: input.stage },
    ...(input.custodyAccountId === undefined ? [] : [{ TagKey: SOLANA_KEY_TAGS.account, TagValue: input.custodyAccountId }]),
  ];
}

/**
 * Creates an Ed25519 signing key for one Solana address, tagged as the grants require; returns its id and ARN.
 * Its address is `new KmsEd25519Signer(kms, keyId).getAddress()`. The gateway deletes only keys that never
 * became an address (`scheduleSolanaKeyDeletion`).
 */
export async function createSolanaSigningKey(
  kms: KMSClient,
  input: SolanaKeyTagsInput & { readonly description?: string },
): Promise<{ keyId: string; keyArn: string }> {
  const { CreateKeyCommand } = await import('@aws-sdk/client-kms');
  const out = await kms.send(
    new CreateKeyCommand({
      KeySpec: 'ECC_NIST_EDWARDS25519',
      KeyUsage: 'SIGN_VERIFY',
      Description: input.description ?? `Payment gateway (${input.stage}) custody Solana address`,
      Tags: solanaKeyTags(input),
    }),
  );
  const keyId = out.KeyMetadata?.KeyId;
  const keyArn = out.KeyMetadata?.Arn;
  if (!keyId || !keyArn) throw new Error('KMS CreateKey answered without a key id');
  return { keyId, keyArn };
}

/** The shortest waiting period KMS allows before it deletes a key (days). */
export const KEY_DELETION_WINDOW_DAYS = 7;

/**
 * Schedules the deletion of a key that never became a stored address (a concurrent first call stored the
 * account's address with its own key), after KMS's shortest waiting period: until then the key is disabled and
 * `CancelKeyDeletion` brings it back. Returns when KMS deletes it.
 */
export async function scheduleSolanaKeyDeletion(kms: KMSClient, keyId: string): Promise<Date | undefined> {
  const { ScheduleKeyDeletionCommand } = await import('@aws-sdk/client-kms');
  const out = await kms.send(new ScheduleKeyDeletionCommand({ KeyId: keyId, PendingWindowInDays: KEY_DELETION_WINDOW_DAYS }));
  return out.DeletionDate;
}
