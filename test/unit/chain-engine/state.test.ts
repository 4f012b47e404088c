import fc from 'fast-check';
import type { ChainTx, ChainTxAttempt, ChainTxTransition } from '../../../shared/domain/chain-tx.js';
import {
  awaitsBroadcast,
  awaitsSignature,
  canCancel,
  CHAIN_TX_CONFIRMED,
  CHAIN_TX_FAILED,
  CHAIN_TX_STATUSES,
  claimedChainTx,
  InvalidChainTxTransitionError,
  isBumpDue,
  isCancelled,
  isConfirmed,
  isFinal,
  isInFlight,
  isOpen,
  isQueued,
  openChainTx,
  parseRequestId,
  requestedPayload,
  requestIdOf,
  sameRequest,
  transition,
  waitsForGas,
} from '../../../shared/domain/chain-tx.js';
import { ConflictError } from '../../../shared/domain/errors.js';

const T0 = new Date('2026-01-01T00:00:00Z');

const fresh = (): ChainTx => ({
  requestId: 'ETH:w-1',
  network: 'ETH',
  reference: 'w-1',
  purpose: 'withdrawal',
  tenantId: 't1',
  wallet: { keyId: 'k', address: '0x0000000000000000000000000000000000000001' },
  to: '0x0000000000000000000000000000000000000002',
  data: '0x',
  value: 5n,
  status: 'queued',
  attempts: [],
  createdAt: T0.toISOString(),
  updatedAt: T0.toISOString(),
  version: 0,
});

const attempt = (n: number): ChainTxAttempt => ({
  hash: `0x${n.toString(16).padStart(64, '0')}`,
  raw: '0x02',
  fees: { type: 2, maxFeePerGas: 100n + BigInt(n), maxPriorityFeePerGas: 1n + BigInt(n) },
  gasLimit: 21000n,
  signedAt: T0.toISOString(),
});

const transitionArb: fc.Arbitrary<(tx: ChainTx) => ChainTxTransition> = fc.oneof(
  fc.constant(() => ({ type: 'blocked', reason: 'insufficient_gas' }) as const),
  fc.nat(1000).map((n) => () => ({ type: 'nonce_allocated', nonce: n }) as const),
  fc.nat(1000).map((n) => () => ({ type: 'signed', attempt: attempt(n) }) as const),
  fc.constant(() => ({ type: 'broadcast' }) as const),
  fc.nat(1000).map((n) => () => ({ type: 'bumped', attempt: attempt(n + 5000) }) as const),
  fc.tuple(fc.nat(5), fc.boolean()).map(([i, ok]) => (tx: ChainTx) => {
    const hash = tx.attempts[i % Math.max(1, tx.attempts.length)]?.hash ?? attempt(9999).hash;
    return { type: 'mined', mined: { hash, blockNumber: 7, status: ok ? 1 : 0, gasUsed: 21000n } } as const;
  }),
  fc.constant(() => ({ type: 'dropped', failure: 'nonce_consumed' }) as const),
  fc.constant(() => ({ type: 'cancel' }) as const),
);

describe('chain-tx state machine', () => {
  test('invariants hold over any sequence of transitions', () => {
    fc.assert(
      fc.property(fc.array(transitionArb, { maxLength: 25 }), (steps) => {
        let tx = fresh();
        let finalEvents = 0;
        for (const step of steps) {
          const before = tx;
          let result: ReturnType<typeof transition>;
          try {
            result = transition(before, step(before), T0);
          } catch (error) {
            // Refused transitions leave nothing changed; a refusal is the domain's conflict (409 invalid_state).
            if (error instanceof InvalidChainTxTransitionError) {
              expect(error).toBeInstanceOf(ConflictError);
              expect([error.code, error.details.request_id, error.details.status]).toEqual(['invalid_state', before.requestId, before.status]);
            } else if (!(error instanceof RangeError)) throw error;
            continue;
          }
          tx = result.state;
          expect(isFinal(before)).toBe(false); // final states absorb
          // The version is the repository's: it bumps it when it saves the change.
          expect(tx.version).toBe(before.version);
          expect(tx.updatedAt).toBe(T0.toISOString());
          // A nonce, once given, never changes; signed hashes are only ever added.
          if (before.nonce !== undefined) expect(tx.nonce).toBe(before.nonce);
          expect(tx.attempts.slice(0, before.attempts.length)).toEqual(before.attempts);
          // Only requests never signed may be cancelled.
          if (tx.status === 'cancelled') expect(before.attempts).toHaveLength(0);
          // A mined hash is one of the tracked ones.
          if (tx.mined) expect(tx.attempts.map((a) => a.hash)).toContain(tx.mined.hash);
          for (const event of result.events) {
            finalEvents++;
            expect(isFinal(tx)).toBe(true);
            expect(event.type).toBe(tx.status === 'confirmed' ? CHAIN_TX_CONFIRMED : CHAIN_TX_FAILED);
            // Keyed by its type: a replayed final transition writes the same outbox id.
            expect(event.key).toBe(event.type);
          }
          for (const effect of result.effects) {
            expect(effect.kind).toBe('release_nonce');
            expect(tx.status).toBe('cancelled');
            expect(effect.nonce).toBe(before.nonce);
          }
        }
        expect(finalEvents).toBeLessThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });

  test('happy path with a fee bump announces the mined hash and every tracked hash', () => {
    let tx = fresh();
    tx = transition(tx, { type: 'nonce_allocated', nonce: 3 }, T0).state;
    tx = transition(tx, { type: 'signed', attempt: attempt(1) }, T0).state;
    tx = transition(tx, { type: 'broadcast' }, T0).state;
    expect(isBumpDue(tx, new Date(T0.getTime() + 59_000), 60)).toBe(false);
    expect(isBumpDue(tx, new Date(T0.getTime() + 60_000), 60)).toBe(true);
    tx = transition(tx, { type: 'bumped', attempt: attempt(2) }, T0).state;
    expect(tx.status).toBe('signed');
    tx = transition(tx, { type: 'broadcast' }, T0).state;
    const {
      state: done,
      events,
      effects,
    } = transition(tx, { type: 'mined', mined: { hash: attempt(1).hash, blockNumber: 9, status: 1, gasUsed: 21000n } }, T0);
    expect(done.status).toBe('confirmed');
    expect(effects).toEqual([]);
    expect(events).toEqual([
      {
        type: 'chain_tx.confirmed',
        key: 'chain_tx.confirmed',
        payload: {
          request_id: 'ETH:w-1',
          network: 'ETH',
          reference: 'w-1',
          purpose: 'withdrawal',
          status: 'confirmed',
          tx_hash: attempt(1).hash,
          block_number: 9,
          gas_used: '21000',
          nonce: 3,
          tx_hashes: [attempt(1).hash, attempt(2).hash],
          failure: null,
        },
      },
    ]);
  });

  test('a cancellation before signing releases the nonce; a signed request cannot be cancelled', () => {
    const allocated = transition(fresh(), { type: 'nonce_allocated', nonce: 4 }, T0).state;
    expect(transition(allocated, { type: 'cancel' }, T0)).toMatchObject({
      state: { status: 'cancelled' },
      events: [],
      effects: [{ kind: 'release_nonce', nonce: 4 }],
    });
    expect(transition(fresh(), { type: 'cancel' }, T0).effects).toEqual([]);
    const signed = transition(allocated, { type: 'signed', attempt: attempt(1) }, T0).state;
    expect(() => transition(signed, { type: 'cancel' }, T0)).toThrow(InvalidChainTxTransitionError);
  });

  test('the guards name each step of the lifecycle', () => {
    const of = (status: ChainTx['status']) => ({ status });
    const holds = (guard: (tx: Pick<ChainTx, 'status'>) => boolean) => CHAIN_TX_STATUSES.filter((s) => guard(of(s)));
    expect(holds(isQueued)).toEqual(['queued']);
    expect(holds(awaitsSignature)).toEqual(['allocated']);
    expect(holds(awaitsBroadcast)).toEqual(['signed']);
    expect(holds(isInFlight)).toEqual(['signed', 'pending']);
    expect(holds(canCancel)).toEqual(['queued', 'allocated']);
    expect(holds(isConfirmed)).toEqual(['confirmed']);
    expect(holds(isCancelled)).toEqual(['cancelled']);
    expect(holds(isFinal)).toEqual(['confirmed', 'reverted', 'failed', 'cancelled']);
    expect(holds(isOpen)).toEqual(['queued', 'allocated', 'signed', 'pending']);
    expect([waitsForGas({ reason: 'insufficient_gas' }), waitsForGas({ reason: 'estimate_failed' }), waitsForGas({})]).toEqual([true, false, false]);
  });

  test('a request is created queued (or, for a claimed reference, cancelled) and asked again only with the same fields', () => {
    const draft = { ...fresh(), gasLimit: undefined, items: ['t1:w-1'] };
    const opened = openChainTx(draft, T0);
    expect(opened).toEqual({ ...fresh(), items: ['t1:w-1'] });
    expect(claimedChainTx(draft, T0)).toEqual({ ...opened, status: 'cancelled' });
    expect(requestedPayload(opened)).toEqual({ request_id: 'ETH:w-1', network: 'ETH', reference: 'w-1', purpose: 'withdrawal' });
    expect(sameRequest(opened, draft)).toBe(true);
    expect(sameRequest(opened, { ...draft, value: 6n })).toBe(false);
    expect(sameRequest(opened, { ...draft, items: ['t1:w-2'] })).toBe(false);
    expect(sameRequest(opened, { ...draft, wallet: { ...draft.wallet, keyId: 'other' } })).toBe(false);
  });

  test('request ids round-trip', () => {
    expect(parseRequestId(requestIdOf('ETH', 'sweep:a:b'))).toEqual({ network: 'ETH', reference: 'sweep:a:b' });
    expect(() => parseRequestId('nocolon')).toThrow(TypeError);
  });
});
