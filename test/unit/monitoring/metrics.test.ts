import { jest } from '@jest/globals';
import { emfRecord, emitMetrics, METRIC_NAMES, METRIC_NAMESPACES } from '../../../shared/observability/metrics.js';

describe('emfRecord', () => {
  it('puts the dimension and the values at the root and describes them under _aws', () => {
    const record = emfRecord('Gateway/Test', { network: 'ETH' }, [{ name: 'Stuck', value: 2 }], 1_700_000_000_000);
    expect(record).toEqual({
      _aws: {
        Timestamp: 1_700_000_000_000,
        CloudWatchMetrics: [{ Namespace: 'Gateway/Test', Dimensions: [['network']], Metrics: [{ Name: 'Stuck', Unit: 'Count' }] }],
      },
      network: 'ETH',
      Stuck: 2,
    });
  });

  it('an aggregate metric is published only without dimensions (its dimensions stay as fields); a plain one with them', () => {
    const record = emfRecord('Gateway/Test', { network: 'ETH' }, [
      { name: 'Balance', value: 0.5, unit: 'None' },
      { name: 'Below', value: 1, aggregate: true },
    ]);
    const directives = (record._aws as { CloudWatchMetrics: unknown[] }).CloudWatchMetrics;
    expect(directives).toEqual([
      { Namespace: 'Gateway/Test', Dimensions: [[]], Metrics: [{ Name: 'Below', Unit: 'Count' }] },
      { Namespace: 'Gateway/Test', Dimensions: [['network']], Metrics: [{ Name: 'Balance', Unit: 'None' }] },
    ]);
    expect(record).toMatchObject({ network: 'ETH', Balance: 0.5, Below: 1 });
  });

  it('without dimensions, one empty dimension set (never two)', () => {
    const record = emfRecord('Gateway/Test', {}, [{ name: 'X', value: 0, aggregate: true }]);
    expect((record._aws as { CloudWatchMetrics: { Dimensions: unknown }[] }).CloudWatchMetrics[0]?.Dimensions).toEqual([[]]);
  });

  it('refuses what CloudWatch would drop or misread', () => {
    expect(() => emfRecord('N', {}, [{ name: 'X', value: Number.NaN }])).toThrow(TypeError);
    expect(() => emfRecord('N', {}, [{ name: 'X', value: Number.POSITIVE_INFINITY }])).toThrow(TypeError);
    expect(() => emfRecord('N', { network: 'ETH' }, [{ name: 'network', value: 1 }])).toThrow(TypeError);
    expect(() =>
      emfRecord('N', {}, [
        { name: 'X', value: 1 },
        { name: 'X', value: 2 },
      ]),
    ).toThrow(TypeError);
    expect(() => emfRecord('N', {}, [{ name: '_aws', value: 1 }])).toThrow(TypeError);
    expect(() => emfRecord('N', { network: '' }, [{ name: 'X', value: 1 }])).toThrow(TypeError);
    expect(() => emfRecord('', {}, [{ name: 'X', value: 1 }])).toThrow(TypeError);
  });
});

describe('emitMetrics', () => {
  it('prints exactly one JSON line, and nothing without values', () => {
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      emitMetrics(METRIC_NAMESPACES.chainTx, { network: 'ETH' }, [{ name: METRIC_NAMES.insufficientGas, value: 3, aggregate: true }]);
      emitMetrics(METRIC_NAMESPACES.chainTx, { network: 'ETH' }, []);
      expect(log).toHaveBeenCalledTimes(1);
      const line = String(log.mock.calls[0]?.[0]);
      expect(line).not.toContain('\n');
      expect(JSON.parse(line)).toMatchObject({ network: 'ETH', ChainTxInsufficientGas: 3, _aws: { CloudWatchMetrics: [{ Namespace: 'Gateway/ChainTx' }] } });
    } finally {
      log.mockRestore();
    }
  });

  it('on the local stack (no CloudWatch) prints only with LOCAL_METRICS=true', () => {
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    const saved = { STAGE: process.env.STAGE, LOCAL_METRICS: process.env.LOCAL_METRICS };
    try {
      process.env.STAGE = 'local';
      delete process.env.LOCAL_METRICS;
      emitMetrics(METRIC_NAMESPACES.operations, { network: 'ETH' }, [{ name: METRIC_NAMES.sweepsStuck, value: 0 }]);
      expect(log).not.toHaveBeenCalled();
      process.env.LOCAL_METRICS = 'true';
      emitMetrics(METRIC_NAMESPACES.operations, { network: 'ETH' }, [{ name: METRIC_NAMES.sweepsStuck, value: 0 }]);
      expect(log).toHaveBeenCalledTimes(1);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      log.mockRestore();
    }
  });

  it('the names the alarms use are the documented ones', () => {
    expect(METRIC_NAMESPACES).toEqual({
      chainTx: 'Gateway/ChainTx',
      operations: 'Gateway/Operations',
      webhooks: 'Gateway/Webhooks',
      scanner: 'Gateway/Scanner',
    });
    expect(METRIC_NAMES).toEqual({
      insufficientGas: 'ChainTxInsufficientGas',
      hotWalletBelowMinimum: 'HotWalletBelowMinimum',
      sweepsStuck: 'PaymentSweepsStuck',
      withdrawalsStuck: 'WithdrawalsStuck',
      acceptedWorkStuck: 'AcceptedWorkStuck',
      acceptedWorkRedriven: 'AcceptedWorkRedriven',
      webhookAttemptSucceeded: 'WebhookAttemptSucceeded',
      webhookAttemptLatency: 'WebhookAttemptLatency',
      scannerBlocksBehind: 'ScannerBlocksBehind',
    });
  });
});
