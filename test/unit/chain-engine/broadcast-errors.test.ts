import { classifyBroadcastError } from '../../../shared/chain/engine/evm.js';

describe('broadcast answers', () => {
  test.each([
    ['already known', 'known'],
    ['transaction already imported', 'known'],
    ['replacement transaction underpriced', 'known'],
    ['nonce too low: next nonce 5, tx nonce 4', 'nonce_too_low'],
    ['insufficient funds for gas * price + value', 'insufficient_funds'],
  ])('%s -> %s', (message, kind) => {
    const error = Object.assign(new Error('could not coalesce error'), { info: { error: { code: -32003, message } } });
    expect(classifyBroadcastError(error)?.kind).toBe(kind);
  });

  test('anything else is not an answer but an error', () => {
    expect(classifyBroadcastError(new Error('connect ECONNREFUSED'))).toBeUndefined();
  });
});
