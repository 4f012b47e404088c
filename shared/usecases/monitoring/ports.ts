import type { Clock } from '../../domain/clock.js';
import type { StatusSince } from '../../domain/monitoring.js';
import type { QueueName } from '../../domain/queues.js';
import type { AcceptedWork, AcceptedWorkKind, RedriveRecord, RedriveRule } from '../../domain/reconcile.js';
import type { EmitMetrics } from '../../observability/metrics.js';
import type { QueueSender } from '../events/ports.js';

/** What the monitor reads (the gsi3 work queues) and its thresholds. */
export interface StuckWorkPorts {
  /** Networks reported (0 when nothing is stuck): the catalogue's. */
  readonly networks: readonly string[];
  /** A network's open payments (confirming, partially paid, confirmed, sending). */
  readonly openPayments: (network: string) => Promise<readonly StatusSince[]>;
  /** Withdrawals in `processing`, every network. */
  readonly processingWithdrawals: () => Promise<readonly StatusSince[]>;
  readonly clock: Clock;
  readonly sweepStuckMinutes: number;
  readonly withdrawalStuckMinutes: number;
  readonly emit?: EmitMetrics;
}

/** A message to send again: the event the event router sent (or would have sent) for the work, to its consumer's queue. */
export interface RedriveMessage {
  readonly queue: QueueName;
  readonly eventId: string;
  readonly eventType: string;
  /** The router's message body for the event (its id, tenant, type, time and payload). */
  readonly body: string;
}

/** Accepted work past its deadline, with the message that moves it. */
export interface OverdueWork extends AcceptedWork {
  readonly message: RedriveMessage;
}

/** One kind's work queue (a gsi3 partition, oldest first), as the reconciler reads it. */
export interface AcceptedWorkQueue {
  readonly kind: AcceptedWorkKind;
  /**
   * Open work of this kind not changed since `before` (ISO), at most `limit`, oldest first, each with its message.
   * Work that has nothing to re-send (a withdrawal whose chain transaction is still open is the follower's) is left out.
   */
  overdue(before: string, limit: number): Promise<readonly OverdueWork[]>;
}

/** The reconciler's record of its re-drives, one per piece of work. */
export interface RedriveLog {
  /** The records of these pieces of work (absent: never re-driven), by `redriveKey`. */
  get(work: readonly AcceptedWork[]): Promise<ReadonlyMap<string, RedriveRecord>>;
  /**
   * Records a re-drive, conditioned on the record still being `previous` (null: none): false when another run
   * recorded one meanwhile (that run sends the message; this one does not).
   */
  claim(work: AcceptedWork, previous: RedriveRecord | null, next: RedriveRecord): Promise<boolean>;
}

export interface ReconcilePorts {
  readonly queues: readonly AcceptedWorkQueue[];
  readonly redrives: RedriveLog;
  readonly sender: QueueSender;
  readonly clock: Clock;
  readonly rule: RedriveRule;
  /** Most overdue items read per kind and run (the oldest first; the rest wait for the next run). */
  readonly readLimit: number;
  readonly emit?: EmitMetrics;
}
