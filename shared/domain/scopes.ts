/** OAuth scopes. Reads need `read`; changes need `read write`; platform-fee balances need `admin`. */
export const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export const READ: readonly Scope[] = ['read'];
export const READ_WRITE: readonly Scope[] = ['read', 'write'];
export const ADMIN: readonly Scope[] = ['admin'];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Parses a space-separated scope string (RFC 6749 section 3.3); unknown names are returned apart. */
export function parseScopes(text: string): { scopes: Scope[]; unknown: string[] } {
  const names = [...new Set(text.split(/\s+/).filter(Boolean))];
  return { scopes: sortScopes(names.filter(isScope)), unknown: names.filter((n) => !isScope(n)) };
}

export function sortScopes(scopes: readonly Scope[]): Scope[] {
  return SCOPES.filter((s) => scopes.includes(s));
}

export function formatScopes(scopes: readonly Scope[]): string {
  return sortScopes(scopes).join(' ');
}

export function missingScopes(required: readonly Scope[], held: readonly Scope[]): Scope[] {
  return required.filter((s) => !held.includes(s));
}
