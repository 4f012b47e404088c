import { missingScopes, parseScopes } from '../../../shared/domain/scopes.js';
import { schemaNameFor } from '../../../shared/domain/tenant.js';

describe('scopes', () => {
  it('parses space-separated scopes, ordering them and separating unknown names', () => {
    expect(parseScopes('write  read read')).toEqual({ scopes: ['read', 'write'], unknown: [] });
    expect(parseScopes('read superuser')).toEqual({ scopes: ['read'], unknown: ['superuser'] });
  });

  it('names the scopes a credential lacks', () => {
    expect(missingScopes(['read', 'write'], ['read'])).toEqual(['write']);
    expect(missingScopes(['admin'], ['read', 'write', 'admin'])).toEqual([]);
  });

  it('derives a readable schema name', () => {
    expect(schemaNameFor('Acme Corp., Ltd!', 'ab12')).toBe('acme_corp_ltd_ab12');
    expect(schemaNameFor('¡¡¡', 'ab12')).toBe('tenant_ab12');
  });
});
