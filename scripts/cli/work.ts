/** `work reconcile`: the monitor's reconciler, run once now (after a crash, without waiting for the next minute). */
import { config } from '../../shared/config/config.js';
import { reconcileRuntime } from '../../shared/runtime/monitoring.js';
import type { ReconcileReport } from '../../shared/usecases/monitoring/reconcile.js';
import { reconcileAcceptedWork } from '../../shared/usecases/monitoring/reconcile.js';
import { intOpt, json, str, UsageError } from './command.js';
import type { CommandGroup } from './command.js';

export const workCommands: CommandGroup = {
  reconcile: {
    usage: 'work reconcile [--after-minutes N] [--json]',
    summary:
      'Send again the message of accepted work not changed for N minutes (default REDRIVE_AFTER_MINUTES): wallet transfers, exports, withdrawals with a known chain result; print what was re-driven and what stays stuck.',
    options: { 'after-minutes': str, json },
    run: (v) => {
      const runtime = reconcileRuntime(config());
      const after = intOpt(v, 'after-minutes') ?? runtime.rule.afterMinutes;
      if (after < 1) throw new UsageError('--after-minutes must be at least 1');
      return reconcileAcceptedWork({ ...runtime, rule: { ...runtime.rule, afterMinutes: after } });
    },
    text: (r) => {
      const { redriven, stuck } = r as ReconcileReport;
      return Object.keys(redriven)
        .map((kind) => `${kind}: ${redriven[kind as keyof typeof redriven] ?? 0} re-driven, ${stuck[kind as keyof typeof stuck] ?? 0} stuck`)
        .join('\n');
    },
  },
};
