/** A JSON client of a running API (the local stack's HTTP server) with one tenant's bearer token. */
export type BearerApi = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;

export function bearerApi(baseUrl: () => string, bearer: () => string): BearerApi {
  return async (method, path, body) => {
    const res = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer()}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}
