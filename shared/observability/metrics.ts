/**
 * Operational metrics as CloudWatch Embedded Metric Format (EMF) log lines: a Lambda prints one JSON object
 * per line, CloudWatch Logs extracts the metrics from it (no PutMetricData call, no extra latency, nothing to
 * fail but a log line). This file is the ONE place metric names, namespaces and dimensions are spelled: the
 * emitters (shared/usecases) and the alarms (infra/cdk/gateway-stack.ts) both import them from here.
 *
 * Spec: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
 */

export const METRIC_NAMESPACES = {
  /** The chain-transaction engine and the hot wallet that pays its gas. */
  chainTx: 'Gateway/ChainTx',
  /** Work that should move by itself and did not (sweeps, withdrawals). */
  operations: 'Gateway/Operations',
  /** Webhook delivery attempts (both lanes). */
  webhooks: 'Gateway/Webhooks',
  /** The chain scanner's progress. */
  scanner: 'Gateway/Scanner',
} as const;

export const METRIC_NAMES = {
  /** Chain-tx requests waiting because the hot wallet cannot pay for gas (Count; only printed when > 0). */
  insufficientGas: 'ChainTxInsufficientGas',
  /** 1 while the hot wallet's native balance is below `HOT_WALLET_MIN_BALANCE` of the network (only printed then). */
  hotWalletBelowMinimum: 'HotWalletBelowMinimum',
  /** Payments in `sending` longer than `SWEEP_STUCK_MINUTES` (Count; 0 included). */
  sweepsStuck: 'PaymentSweepsStuck',
  /** Withdrawals in `processing` longer than `WITHDRAWAL_STUCK_MINUTES` (Count; 0 included). */
  withdrawalsStuck: 'WithdrawalsStuck',
  /** Accepted work (transfers, exports, withdrawals) still not moved a deadline after the monitor re-drove it (Count; 0 included). */
  acceptedWorkStuck: 'AcceptedWorkStuck',
  /** Accepted work whose message the monitor sent again this run (Count; 0 included). */
  acceptedWorkRedriven: 'AcceptedWorkRedriven',
  /** 1 per webhook attempt answered with a 2xx, 0 per other attempt (Average: success rate; SampleCount: attempts); no dimension. */
  webhookAttemptSucceeded: 'WebhookAttemptSucceeded',
  /** Milliseconds from a webhook attempt's request to its answer (or its failure); no dimension. */
  webhookAttemptLatency: 'WebhookAttemptLatency',
  /** Blocks between a network's tip and its scanner's cursor at the end of the scanner's run (Count, per network). */
  scannerBlocksBehind: 'ScannerBlocksBehind',
} as const;

/** The dimension every gateway metric carries (network code: ETH, POLYGON, ...). */
export const NETWORK_DIMENSION = 'network';
/** The dimension of the reconciler's metrics: the kind of work (wallet_transfer, transaction_export, withdrawal). */
export const WORK_DIMENSION = 'work';

export type MetricUnit = 'Count' | 'None' | 'Milliseconds';

export interface MetricDatum {
  readonly name: string;
  readonly value: number;
  /** Default `Count`. */
  readonly unit?: MetricUnit;
  /**
   * Publish the value ONLY without any dimension (EMF's empty dimension set): one metric, whatever the networks
   * or kinds of work, that one alarm watches without knowing them at deploy time. The record's dimensions stay in
   * the line as plain fields (Logs Insights finds which network or work it was), not as metric dimensions: each
   * dimension value would be one more custom metric billed every month (USD 0.30 each), and no alarm or graph
   * reads them per value. Only for values whose maximum across networks means something (counts, 0/1 flags),
   * never for balances in different coins.
   */
  readonly aggregate?: boolean;
}

export type EmitMetrics = (namespace: string, dimensions: Readonly<Record<string, string>>, metrics: readonly MetricDatum[]) => void;

const RESERVED = new Set(['_aws']);

/** The EMF document of one set of values (pure; `emitMetrics` prints it). */
export function emfRecord(
  namespace: string,
  dimensions: Readonly<Record<string, string>>,
  metrics: readonly MetricDatum[],
  timestamp: number = Date.now(),
): Record<string, unknown> {
  if (namespace.length === 0) throw new TypeError('EMF: empty namespace');
  const keys = Object.keys(dimensions);
  const names = new Set<string>();
  for (const m of metrics) {
    if (!Number.isFinite(m.value)) throw new TypeError(`EMF: ${m.name} is not a finite number (${m.value})`);
    if (RESERVED.has(m.name) || keys.includes(m.name) || names.has(m.name)) throw new TypeError(`EMF: ${m.name} is used twice`);
    names.add(m.name);
  }
  for (const k of keys) {
    if (RESERVED.has(k) || dimensions[k] === '') throw new TypeError(`EMF: bad dimension ${k}`);
  }
  const directive = (group: readonly MetricDatum[], dimensionSets: string[][]) => ({
    Namespace: namespace,
    Dimensions: dimensionSets,
    Metrics: group.map((m) => ({ Name: m.name, Unit: m.unit ?? 'Count' })),
  });
  const aggregated = metrics.filter((m) => m.aggregate === true);
  const plain = metrics.filter((m) => m.aggregate !== true);
  const directives = [...(aggregated.length > 0 ? [directive(aggregated, [[]])] : []), ...(plain.length > 0 ? [directive(plain, [keys])] : [])];
  return {
    _aws: { Timestamp: timestamp, CloudWatchMetrics: directives },
    ...dimensions,
    ...Object.fromEntries(metrics.map((m) => [m.name, m.value])),
  };
}

/**
 * Prints one EMF line (stdout is what Lambda sends to CloudWatch Logs). Nothing to print: nothing printed. On the
 * local stack (no CloudWatch) only with `LOCAL_METRICS=true`, so the console shows requests and errors.
 */
export const emitMetrics: EmitMetrics = (namespace, dimensions, metrics) => {
  if (metrics.length === 0) return;
  if (process.env.STAGE === 'local' && process.env.LOCAL_METRICS !== 'true') return;
  console.log(JSON.stringify(emfRecord(namespace, dimensions, metrics)));
};
