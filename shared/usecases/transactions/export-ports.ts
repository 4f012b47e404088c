import type { Clock } from '../../domain/clock.js';
import type { ExportChange, ExportState } from '../../domain/exports.js';
import type { WriteItem } from '../ports.js';
import type { TransactionHistory } from './ports.js';

/**
 * What the export use cases need from outside, as ports. `shared/runtime/exports.ts` builds the real ones (the
 * jobs on the table, shared/store/exports.ts; the files in S3, shared/store/export-files.ts; the history, shared/
 * store/transactions.ts); tests pass in-memory fakes (test/support/fakes/transactions.ts).
 */

export interface ExportJobs {
  /** The tenant's job; null for none (or another tenant's). */
  get(tenantId: string, exportId: string): Promise<ExportState | null>;
  /** Stores a new job with its events and `alsoWrite` (the Idempotency-Key record) in ONE transaction. Returns it as stored. */
  create(change: ExportChange, now: Date, alsoWrite?: (stored: ExportState) => readonly WriteItem[]): Promise<ExportState>;
  /** Saves a change conditioned on the version read (ConflictError when the job moved meanwhile). Returns it as stored. */
  save(previous: ExportState, change: ExportChange, now: Date): Promise<ExportState>;
}

/** One file being written, front to back. Nothing is visible under its key before `complete`. */
export interface ExportUpload {
  /** Appends UTF-8 text; resolves once what must leave memory has been sent. */
  write(text: string): Promise<void>;
  /** Makes the file visible under its key (replacing any earlier one). */
  complete(): Promise<{ readonly bytes: number }>;
  /** Drops what was sent; never throws. */
  abort(): Promise<void>;
}

export interface ExportFiles {
  upload(key: string, file: { readonly contentType: string; readonly fileName: string }): ExportUpload;
  /** A URL that downloads the file without credentials until `expiresAt` (signed at `signedAt`). */
  downloadUrl(key: string, options: { readonly signedAt: Date; readonly expiresInSeconds: number }): Promise<string>;
}

export interface ExportSettings {
  /** History records read per page. */
  readonly pageSize: number;
  /** Lifetime of a download URL, seconds. */
  readonly downloadUrlSeconds: number;
}

export interface ExportsPorts {
  readonly exports: ExportJobs;
  readonly history: Pick<TransactionHistory, 'page'>;
  readonly files: ExportFiles;
  readonly exportSettings: ExportSettings;
  readonly clock: Clock;
}
