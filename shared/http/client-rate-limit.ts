/**
 * A token bucket per client address, in memory: for public endpoints that must not write to the table on each
 * request (the checkout page). Each Lambda instance keeps its own buckets, so a client spread over instances gets
 * at most the limit per instance; API Gateway's throttling and a WAF rate rule bound the whole.
 */
export interface ClientRateLimiter {
  /** Takes one request from `client`'s bucket: 0 when allowed, else the seconds until one is. */
  take(client: string, now: number): number;
}

export function clientRateLimiter(perMinute: number, maxClients = 50_000): ClientRateLimiter {
  const capacity = perMinute;
  const perMs = perMinute / 60_000;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(client, now) {
      const b = buckets.get(client) ?? { tokens: capacity, at: now };
      const tokens = Math.min(capacity, b.tokens + (now - b.at) * perMs);
      buckets.delete(client); // re-inserted last: the map's order is least recently seen first
      if (buckets.size >= maxClients) buckets.delete(buckets.keys().next().value as string);
      if (tokens < 1) {
        buckets.set(client, { tokens, at: now });
        return Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
      }
      buckets.set(client, { tokens: tokens - 1, at: now });
      return 0;
    },
  };
}
