import type { ScheduledEvent } from 'aws-lambda';
import { expirePayments } from '../../shared/usecases/payments/expire.js';

/** EventBridge, every minute: waiting payments past their expiry_time become `expired`. */
export async function handler(event?: Partial<Pick<ScheduledEvent, 'time'>>): Promise<{ expired: number }> {
  const at = event?.time ? new Date(event.time) : new Date();
  const now = Number.isNaN(at.getTime()) || at.getTime() < Date.now() ? new Date() : at;
  return expirePayments(now);
}
