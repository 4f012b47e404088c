import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { GatewayError } from '../domain/errors.js';
import type { WriteItem } from '../usecases/ports.js';
import { db } from './client.js';
import { keys } from './keys.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Items other ports prepare for a repository's transaction travel through use cases as opaque `WriteItem`s
 * (shared/usecases/ports.ts); these two are the only places that see through the wrapper.
 */
export const asWriteItem = (item: TransactItem): WriteItem => item as unknown as WriteItem;
export const asTransactItem = (item: WriteItem): TransactItem => item as unknown as TransactItem;

/** A single write refused by its condition (`ConditionalCheckFailedException`, from any copy of the SDK). */
export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException || (error instanceof Error && error.name === 'ConditionalCheckFailedException');

/**
 * A transaction cancelled because one of its conditions failed. `failedIndexes` names the items whose
 * condition failed, so the caller can tell which rule was broken (balance, idempotency, state).
 */
export class TransactionConditionError extends Error {
  readonly failedIndexes: readonly number[];

  constructor(failedIndexes: number[], options?: { cause?: unknown }) {
    super(`Transaction condition failed at item(s) ${failedIndexes.join(', ')}`, options);
    this.name = 'TransactionConditionError';
    this.failedIndexes = failedIndexes;
  }
}

export interface TransactOptions {
  /** Attempts when DynamoDB cancels for a conflicting concurrent transaction. */
  readonly maxAttempts?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly clientRequestToken?: string;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The key an item writes or checks. */
const keyOf = (item: TransactItem): Record<string, unknown> | undefined =>
  (item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key) as Record<string, unknown> | undefined;

/**
 * Writes the items in one TransactWriteItems. A cancellation caused by a concurrent transaction
 * (`TransactionConflict`) is retried with jittered backoff and never reported as a failed condition;
 * a cancellation caused by a condition becomes a TransactionConditionError naming the items. One condition is
 * the mechanism's own, whatever change carries it: an Idempotency-Key record refused its completion (its lock ran
 * out and another request holds the key) is 409 `idempotency_conflict`, and nothing of the change was written.
 */
export async function transactWrite(items: TransactItem[], options: TransactOptions = {}): Promise<void> {
  const maxAttempts = options.maxAttempts ?? 8;
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: options.clientRequestToken }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException) && (error as Error).name !== 'TransactionCanceledException') {
        throw error;
      }
      const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
      const failed = reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
      if (failed.some((i) => keys.isIdempotency(keyOf(items[i] as TransactItem))))
        throw new GatewayError('idempotency_conflict', undefined, undefined, { cause: error });
      if (failed.length > 0) throw new TransactionConditionError(failed, { cause: error });
      const conflict = reasons.some((r) => r.Code === 'TransactionConflict');
      if (!conflict || attempt >= maxAttempts) throw error;
      await sleep(Math.min(1000, 10 * 2 ** attempt) * (0.5 + Math.random() / 2));
    }
  }
}
