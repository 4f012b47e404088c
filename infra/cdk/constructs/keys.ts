import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { Grant, IGrantable } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/** The only actions the hot-wallet key is ever granted: no private key leaves KMS, so nothing else is needed. */
export const SIGNING_ACTIONS = ['kms:Sign', 'kms:GetPublicKey'] as const;

export interface GatewayKeysProps {
  readonly stage: string;
  /** Make the Solana fee payer's key (where the deployment reaches Solana). */
  readonly solanaFeePayer?: boolean;
}

export class GatewayKeys extends Construct {
  /** secp256k1 key that signs every chain transaction (EVM and Tron share the curve). */
  readonly signingKey: Key;
  /** Envelope key for stored secrets (webhook signing secrets). */
  readonly secretsKey: Key;
  /** Ed25519 key whose address pays the fees of custody's SOL withdrawals; made only where Solana is configured. */
  readonly solanaFeePayerKey: Key | undefined;

  constructor(scope: Construct, id: string, props: GatewayKeysProps) {
    super(scope, id);
    this.signingKey = new Key(this, 'HotWalletSigningKey', {
      description: `Payment gateway (${props.stage}) hot-wallet signing key`,
      alias: `alias/payment-gateway/${props.stage}/hot-wallet`,
      keySpec: KeySpec.ECC_SECG_P256K1,
      keyUsage: KeyUsage.SIGN_VERIFY,
      // Deleting this key loses the hot wallet's funds: it outlives the stack.
      removalPolicy: RemovalPolicy.RETAIN,
      pendingWindow: Duration.days(30),
    });
    this.secretsKey = new Key(this, 'SecretsKey', {
      description: `Payment gateway (${props.stage}) stored-secrets key`,
      alias: `alias/payment-gateway/${props.stage}/secrets`,
      enableKeyRotation: true,
      // Stored ciphertexts are unreadable without it.
      removalPolicy: RemovalPolicy.RETAIN,
      pendingWindow: Duration.days(30),
    });
    this.solanaFeePayerKey = props.solanaFeePayer
      ? new Key(this, 'SolanaFeePayerKey', {
          description: `Payment gateway (${props.stage}) Solana fee payer key`,
          alias: `alias/payment-gateway/${props.stage}/solana-fee-payer`,
          keySpec: KeySpec.ECC_NIST_EDWARDS25519,
          keyUsage: KeyUsage.SIGN_VERIFY,
          // Its address holds the SOL that pays withdrawals' fees: it outlives the stack.
          removalPolicy: RemovalPolicy.RETAIN,
          pendingWindow: Duration.days(30),
        })
      : undefined;
  }

  /** Sign and read the public key (to derive addresses); never Verify, Decrypt, or key administration. */
  grantSign(grantee: IGrantable): Grant {
    return this.signingKey.grant(grantee, ...SIGNING_ACTIONS);
  }

  /**
   * Read the hot wallet's public key only, never sign: what makes a Bitcoin deposit address (a P2WSH output over the
   * key, shared/chain/btc/p2wsh.ts) in the API function that creates payments.
   */
  grantPublicKey(grantee: IGrantable): Grant {
    return this.signingKey.grant(grantee, 'kms:GetPublicKey');
  }

  /** Sign with, and read the public key of, the Solana fee payer (the worker that sends SOL withdrawals); nothing else. */
  grantSolanaFeePayer(grantee: IGrantable): Grant | undefined {
    return this.solanaFeePayerKey?.grant(grantee, ...SIGNING_ACTIONS);
  }
}
