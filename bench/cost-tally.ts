/**
 * What the cost bench counts (bench/cost.ts) and prices (bench/cost-report.ts): the tallies alone, so that the
 * report and its test load none of the stack the bench runs.
 */
import type { Units } from '../shared/store/client.js';
import type { StackInventory } from './cost-inventory.js';

/** What one stretch of work cost in counted things. */
export interface Tally {
  /** `<service> <operation>` -> requests (service: sqs, kms, s3). */
  readonly requests: Record<string, number>;
  /** Function name -> invocations and summed durations (ms, each rounded up to the next ms as Lambda bills). */
  readonly invocations: Record<string, { count: number; billedMs: number }>;
  units: Units;
  tableCalls: number;
  apiRequests: number;
  logBytes: number;
  /** EMF metrics printed: `namespace metric dimension=value,...`. */
  readonly metrics: Set<string>;
}

/** An empty tally (`over` replaces fields). */
export const newTally = (over: Partial<Tally> = {}): Tally => ({
  requests: {},
  invocations: {},
  units: { read: 0, write: 0 },
  tableCalls: 0,
  apiRequests: 0,
  logBytes: 0,
  metrics: new Set(),
  ...over,
});

export interface IdleWorker {
  readonly name: string;
  /** Per invocation, as measured (mean of the measured runs). */
  readonly perInvocation: Tally;
  readonly runs: number;
  /** Loops for its whole budget: the figures are per measured second, billed over `billedSeconds`. */
  readonly loops: boolean;
  /** Meant to loop, but returned well before its budget: billed as measured. */
  readonly returnedEarly: boolean;
  readonly measuredSeconds: number;
  readonly billedSeconds: number;
  readonly failed: string | null;
  /** A worker meant to loop: the seconds of each minute it loops while it has work (timeout less margin); else null. */
  readonly loopBudgetSeconds: number | null;
  /**
   * Peak memory of the worker run alone in a fresh Node process (its bundle, as deployed), MB: resident
   * set (what Lambda's memory limit bounds) and V8 heap used after the run; null where not measured.
   */
  readonly memory: { readonly peakRssMb: number; readonly heapUsedMb: number } | null;
}

export interface CostMeasurement {
  readonly payments: number;
  /** Summed over the measured lifecycles. */
  readonly lifecycle: Tally;
  readonly idle: readonly IdleWorker[];
  readonly inventory: StackInventory;
  /**
   * The lifecycles' sweeps, through the chain-tx engine as in production: how many chain transactions, and the
   * deposits a block the bench landed (so each sweep's batch), with the volume that assumes. Absent: not counted.
   */
  /**
   * Event-triggered workers' peak resident set and heap after replaying the largest event each handled, alone in a
   * fresh Node process (its bundle, as deployed), and the records of that event the replay reported failed.
   */
  readonly eventMemory?: readonly {
    readonly name: string;
    readonly peakRssMb: number;
    readonly heapUsedMb: number;
    readonly eventBytes: number;
    readonly failures: number;
  }[];
  /**
   * Write units per payment as DynamoDB bills them, item by item from the images around each write
   * (bench/write-billing.ts), on `payments` lifecycles run for it: the table's and the indexes', in all and by the
   * kind of item. Absent: the write units are DynamoDB Local's answers (`lifecycle.units.write`).
   */
  readonly billedWrites?: {
    readonly payments: number;
    readonly table: number;
    readonly indexes: number;
    readonly byKind: Readonly<Record<string, { readonly table: number; readonly indexes: number }>>;
  };
  readonly sweeps?: { readonly count: number; readonly depositsPerBlock: number; readonly assumption: string };
  readonly elapsedSeconds: number;
}
