import type { KMSClient } from '@aws-sdk/client-kms';
import type { Config } from '../config/config.js';
import { traced } from '../observability/client-tracing.js';

let kms: Promise<KMSClient> | undefined;

/**
 * One KMS client per process for custody's Ed25519 keys (the custody Lambda makes them, the Solana poller signs with
 * them), made on first use through the SDK's KMS endpoint (`AWS_ENDPOINT_URL_KMS` locally), its module loaded then:
 * the custody API starts without it.
 */
export const custodyKmsClient = (cfg: Config): Promise<KMSClient> =>
  (kms ??= import('@aws-sdk/client-kms').then(({ KMSClient }) => traced(new KMSClient({ region: cfg.AWS_REGION, maxAttempts: 3 }))));
