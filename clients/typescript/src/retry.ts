/**
 * Retries that cannot duplicate: a POST carries an `Idempotency-Key` (the caller's, else a fresh one) and the same
 * key on every attempt, so the gateway replays the first answer instead of acting twice. Retried: a network error
 * (the TypeError fetch rejects with; any other error is thrown at once), 429 (after its `Retry-After`), 502, 503, 504, and a 409 `idempotency_conflict` (the first attempt is still
 * running); each wait is an exponential backoff with jitter unless the gateway named one.
 */

export type FetchLike = (request: Request) => Promise<Response>;

export interface RetryOptions {
  /** Attempts after the first (default 3). */
  readonly maxRetries?: number;
  /** The first backoff, doubled on each retry and jittered (default 500 ms). */
  readonly retryDelayMs?: number;
  /** The longest backoff (default 20 s); a `Retry-After` is honoured as given. */
  readonly maxRetryDelayMs?: number;
  /** Told before each wait: for logs and metrics. */
  readonly onRetry?: (retry: RetryInfo) => void;
}

export interface RetryInfo {
  readonly request: Request;
  /** 1 for the first retry. */
  readonly retry: number;
  readonly delayMs: number;
  readonly status: number | null;
  readonly error: unknown;
}

const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** A fetch that retries `fetchOnce` as above; the request's body is read once and sent again on each attempt. */
export function retryingFetch(fetchOnce: FetchLike, options: RetryOptions = {}): FetchLike {
  const { maxRetries = 3, retryDelayMs = 500, maxRetryDelayMs = 20_000, onRetry } = options;
  return async (request) => {
    const headers = new Headers(request.headers);
    if (request.method === 'POST' && !headers.has(IDEMPOTENCY_HEADER)) headers.set(IDEMPOTENCY_HEADER, crypto.randomUUID());
    const body = request.body === null ? null : await request.arrayBuffer();
    const attempt = (): Request =>
      new Request(request.url, { method: request.method, headers, body, signal: request.signal, redirect: request.redirect, credentials: request.credentials });

    for (let retry = 1; ; retry++) {
      let response: Response | null = null;
      let error: unknown = null;
      try {
        response = await fetchOnce(attempt());
      } catch (e) {
        if (request.signal.aborted || !(e instanceof TypeError)) throw e;
        error = e;
      }
      if (retry > maxRetries || !(response === null || (await retriable(response, headers)))) {
        if (response === null) throw error;
        return response;
      }
      const backoff = Math.min(maxRetryDelayMs, retryDelayMs * 2 ** (retry - 1));
      const delayMs = (response && retryAfterMs(response.headers.get('retry-after'))) ?? Math.round(backoff / 2 + (Math.random() * backoff) / 2);
      await response?.body?.cancel().catch(() => undefined);
      onRetry?.({ request, retry, delayMs, status: response?.status ?? null, error });
      await sleep(delayMs, request.signal);
    }
  };
}

async function retriable(response: Response, headers: Headers): Promise<boolean> {
  if (RETRIED_STATUSES.has(response.status)) return true;
  if (response.status !== 409 || !headers.has(IDEMPOTENCY_HEADER)) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { error?: { code?: unknown } } | null;
  return body?.error?.code === 'idempotency_conflict';
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now (null when absent or unreadable). */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}
