import type { Config } from '../config/config.js';
import { config } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { exportsS3Client, s3ExportFiles } from '../store/export-files.js';
import { dynamoExportJobs } from '../store/exports.js';
import { dynamoTransactionHistory } from '../store/transactions.js';
import type { ExportsPorts } from '../usecases/transactions/export-ports.js';

/**
 * The export use cases wired from configuration, once per Lambda (the transactions API merges it into its runtime;
 * the transaction-exports worker uses it alone): the jobs on the table, the history index, the files in
 * `EXPORT_BUCKET` through one S3 client (path-style against `AWS_ENDPOINT_URL_S3` when set), and the clock.
 */
export function exportsRuntime(cfg: Config = config()): ExportsPorts {
  // The S3 client (and its SDK) is made when a file is first written or presigned, not when the Lambda starts.
  const client = () => exportsS3Client({ region: cfg.AWS_REGION, endpoint: cfg.AWS_ENDPOINT_URL_S3 });
  return {
    exports: dynamoExportJobs,
    history: dynamoTransactionHistory,
    files: s3ExportFiles({ client, bucket: cfg.EXPORT_BUCKET }),
    exportSettings: { pageSize: cfg.EXPORT_PAGE_SIZE, downloadUrlSeconds: cfg.EXPORT_URL_TTL_SECONDS },
    clock: systemClock,
  };
}
