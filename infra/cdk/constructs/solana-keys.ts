import { Stack } from 'aws-cdk-lib';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { SOLANA_KEY_PURPOSE, SOLANA_KEY_TAGS } from '../../../shared/chain/signer/ed25519-keys.js';

/**
 * Least-privilege KMS grants for custody's Solana keys (one Ed25519 key per account address, created at run time
 * by the custody functions: shared/chain/signer/ed25519-keys.ts `createSolanaSigningKey`).
 *
 * - `grantCreate`: `kms:CreateKey` only for `ECC_NIST_EDWARDS25519` / `SIGN_VERIFY` keys with key material made by
 *   KMS, single-Region, carrying the purpose and stage tags (and no tag keys but the gateway's); plus
 *   `kms:TagResource` for those tags (AWS requires it to tag at creation, on every key of the account and Region);
 *   plus GetPublicKey, to read the new key's address; plus `kms:ScheduleKeyDeletion` on the gateway's tagged Ed25519
 *   keys of this stage, for a key made by a call that lost the race to store the account's address (concurrent
 *   first calls each make one; only the stored one is used, the others are scheduled for deletion after KMS's
 *   shortest window, 7 days, during which `CancelKeyDeletion` by an operator brings one back).
 * - `grantSign`: `kms:Sign` (ED25519_SHA_512 over RAW messages) and `kms:GetPublicKey`, only on Ed25519 signing
 *   keys tagged with the purpose and this stage.
 *
 * Nothing else: no Verify, no DescribeKey, no UntagResource, no immediate deletion, no cancelled deletion, no policy change. Because Sign also
 * requires the Ed25519 key spec, a tag put on another key (the secp256k1 hot wallet, the secrets key) grants
 * nothing on it. Keys are created with the default key policy, which lets IAM policies grant their use.
 */
export interface SolanaKeysProps {
  /** The deployment's stage: the stage tag's value. */
  readonly stage: string;
}

export class SolanaKeys extends Construct {
  readonly stage: string;
  /** `arn:<partition>:kms:<region>:<account>:key/*`: every key of this account and Region. */
  readonly keysArn: string;

  constructor(scope: Construct, id: string, props: SolanaKeysProps) {
    super(scope, id);
    this.stage = props.stage;
    this.keysArn = Stack.of(this).formatArn({ service: 'kms', resource: 'key', resourceName: '*' });
  }

  #requestTags(): Record<string, string> {
    return { [`aws:RequestTag/${SOLANA_KEY_TAGS.purpose}`]: SOLANA_KEY_PURPOSE, [`aws:RequestTag/${SOLANA_KEY_TAGS.stage}`]: this.stage };
  }

  #resourceConditions(): Record<string, string> {
    return {
      [`aws:ResourceTag/${SOLANA_KEY_TAGS.purpose}`]: SOLANA_KEY_PURPOSE,
      [`aws:ResourceTag/${SOLANA_KEY_TAGS.stage}`]: this.stage,
      'kms:KeySpec': 'ECC_NIST_EDWARDS25519',
      'kms:KeyUsage': 'SIGN_VERIFY',
    };
  }

  /** Create tagged Ed25519 signing keys and read their public keys (the custody function that makes addresses). */
  grantCreate(grantee: IGrantable): Grant {
    const tagKeys = { 'aws:TagKeys': Object.values(SOLANA_KEY_TAGS) };
    const create = Grant.addToPrincipal({
      grantee,
      actions: ['kms:CreateKey'],
      resourceArns: ['*'],
      conditions: {
        StringEquals: { 'kms:KeySpec': 'ECC_NIST_EDWARDS25519', 'kms:KeyUsage': 'SIGN_VERIFY', 'kms:KeyOrigin': 'AWS_KMS', ...this.#requestTags() },
        Bool: { 'kms:MultiRegion': 'false' },
        'ForAllValues:StringEquals': tagKeys,
      },
    });
    const tag = Grant.addToPrincipal({
      grantee,
      actions: ['kms:TagResource'],
      resourceArns: [this.keysArn],
      conditions: { StringEquals: this.#requestTags(), 'ForAllValues:StringEquals': tagKeys },
    });
    const discard = Grant.addToPrincipal({
      grantee,
      actions: ['kms:ScheduleKeyDeletion'],
      resourceArns: [this.keysArn],
      conditions: { StringEquals: this.#resourceConditions() },
    });
    return create.combine(tag).combine(this.#getPublicKey(grantee)).combine(discard);
  }

  /** Sign Solana messages with, and read the public keys of, the gateway's tagged Ed25519 keys (the custody signer). */
  grantSign(grantee: IGrantable): Grant {
    const sign = Grant.addToPrincipal({
      grantee,
      actions: ['kms:Sign'],
      resourceArns: [this.keysArn],
      conditions: { StringEquals: { ...this.#resourceConditions(), 'kms:SigningAlgorithm': 'ED25519_SHA_512', 'kms:MessageType': 'RAW' } },
    });
    return sign.combine(this.#getPublicKey(grantee));
  }

  #getPublicKey(grantee: IGrantable): Grant {
    return Grant.addToPrincipal({
      grantee,
      actions: ['kms:GetPublicKey'],
      resourceArns: [this.keysArn],
      conditions: { StringEquals: this.#resourceConditions() },
    });
  }
}
