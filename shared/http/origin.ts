/**
 * The origin of the links an answer carries (checkout, claim and link pages): the deployment's public base URL, or,
 * without one configured, the host the request came to.
 */
export const publicOrigin = (req: { readonly headers: Readonly<Record<string, string | undefined>> }, publicBaseUrl: string | null): string =>
  publicBaseUrl ?? `${req.headers['x-forwarded-proto'] ?? 'https'}://${req.headers.host ?? 'localhost'}`;
