import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { EXPORT_RETENTION_DAYS } from '../../../shared/domain/exports.js';
import { acknowledge } from '../acknowledge.js';

/** How long the exports bucket's server access logs are kept. */
export const ACCESS_LOG_RETENTION_DAYS = 365;

/** Where the export files are written (shared/domain/exports.ts `exportObjectKey`): the grants cover nothing else. */
export const EXPORT_OBJECT_PREFIX = 'exports/';
/** What the export worker may do with the files: write them (multipart included) and drop an upload it abandons. */
export const EXPORT_WRITE_ACTIONS = ['s3:PutObject', 's3:AbortMultipartUpload'] as const;
/** What the transactions API needs to presign downloads: a presigned GET acts with the signer's own rights. */
export const EXPORT_READ_ACTIONS = ['s3:GetObject'] as const;

/**
 * The transaction exports' bucket: private (every public access blocked, ACLs off), TLS only, S3-managed
 * encryption, files deleted after EXPORT_RETENTION_DAYS (the jobs read as not found from then on) and incomplete
 * multipart uploads a crashed run left after a day. Retained on stack deletion, like the table and the keys: it
 * holds tenants' data, and its lifecycle rule empties it within the retention anyway. Its server access logs
 * (who read or wrote which file) go to a log bucket of their own, as private, kept ACCESS_LOG_RETENTION_DAYS.
 */
export class GatewayExportsBucket extends Construct {
  readonly bucket: Bucket;
  readonly accessLogs: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // S3 delivers server access logs only to a bucket with S3-managed encryption (not KMS).
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      versioned: false,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(ACCESS_LOG_RETENTION_DAYS) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(
      this.accessLogs,
      'AwsSolutions-S1',
      "The log bucket of the exports bucket's server access logs: logging its own accesses would log the log deliveries themselves; S3 writes to it, operators read it.",
    );
    this.bucket = new Bucket(this, 'Bucket', {
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'exports-bucket/',
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      versioned: false,
      lifecycleRules: [
        {
          id: 'expire-exports',
          prefix: EXPORT_OBJECT_PREFIX,
          expiration: Duration.days(EXPORT_RETENTION_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** The export worker: write export files (PutObject covers every step of a multipart upload) and abort its uploads. */
  grantWriteExports(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...EXPORT_WRITE_ACTIONS], resources: [this.bucket.arnForObjects(`${EXPORT_OBJECT_PREFIX}*`)] }),
    );
  }

  /** The transactions API: read export files, which is what the download URLs it signs do. */
  grantReadExports(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...EXPORT_READ_ACTIONS], resources: [this.bucket.arnForObjects(`${EXPORT_OBJECT_PREFIX}*`)] }),
    );
  }
}
