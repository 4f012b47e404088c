import type { QueueMessage, QueueName } from '../../../shared/domain/queues.js';
import type { Log, LogFields } from '../../../shared/observability/logger.js';
import type { ChainResultSettlement, SweepResult, WithdrawalChainResult } from '../../../shared/usecases/chain-tx/ports.js';
import type { QueueSender } from '../../../shared/usecases/events/ports.js';

/** A queue sender that records every batch call; `refuse` names the messages a queue does not accept. */
export class FakeQueueSender implements QueueSender {
  readonly calls: { queue: QueueName; messages: QueueMessage[] }[] = [];

  constructor(private readonly refuse: (queue: QueueName, message: QueueMessage) => boolean = () => false) {}

  async sendBatch(queue: QueueName, messages: readonly QueueMessage[]): Promise<string[]> {
    this.calls.push({ queue, messages: [...messages] });
    return messages.filter((m) => this.refuse(queue, m)).map((m) => m.id);
  }

  /** Every message sent to `queue`, in order. */
  sentTo(queue: QueueName): QueueMessage[] {
    return this.calls.filter((c) => c.queue === queue).flatMap((c) => c.messages);
  }
}

/** A log that keeps its lines. */
export class RecordingLog implements Log {
  readonly lines: { level: 'debug' | 'info' | 'warn' | 'error'; message: string; fields: LogFields }[] = [];
  debug(message: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'debug', message, fields });
  }
  info(message: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'info', message, fields });
  }
  warn(message: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'warn', message, fields });
  }
  error(message: string, fields: LogFields = {}): void {
    this.lines.push({ level: 'error', message, fields });
  }
}

/** Settlements that record what they were asked to settle. */
export class RecordingSettlement implements ChainResultSettlement {
  readonly sweeps: { reference: string; result: SweepResult; now: Date }[] = [];
  readonly withdrawals: { tenantId: string; withdrawalId: string; result: WithdrawalChainResult; now: Date }[] = [];

  async sweep(reference: string, result: SweepResult, now: Date): Promise<void> {
    this.sweeps.push({ reference, result, now });
  }

  async withdrawal(tenantId: string, withdrawalId: string, result: WithdrawalChainResult, now: Date): Promise<void> {
    this.withdrawals.push({ tenantId, withdrawalId, result, now });
  }
}
