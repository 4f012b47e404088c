import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The client's types refuse wrong calls: a tiny program is compiled against '@gateway/client' (types.check.ts, run
 * by `npm run typecheck`, holds the full list).
 */
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../../..');

function diagnostics(source: string): string[] {
  const file = join(HERE, 'virtual-call.ts');
  const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const host = ts.createCompilerHost(options);
  const original = { getSourceFile: host.getSourceFile, fileExists: host.fileExists, readFile: host.readFile };
  host.fileExists = (name) => name === file || original.fileExists(name);
  host.readFile = (name) => (name === file ? source : original.readFile(name));
  host.getSourceFile = (name, version, ...rest) =>
    name === file ? ts.createSourceFile(name, source, version) : original.getSourceFile(name, version, ...rest);
  const program = ts.createProgram([file], { ...options, noEmit: true, types: [] }, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const call = (body: string): string => `import { createGatewayClient } from '@gateway/client';
const gw = createGatewayClient({ baseUrl: 'http://127.0.0.1', apiKey: 'k' });
export const answer = ${body};
`;

describe("the client's types", () => {
  it('compile a correct call, and refuse a wrong body field, a wrong body type and an unknown path', () => {
    expect(diagnostics(call("gw.POST('/payments/', { body: { amount: '25', currency: 'USDTPOLYGON' } })"))).toEqual([]);
    expect(diagnostics(call("gw.POST('/payments/', { body: { amount: '25', colour: 'blue' } })")).join('\n')).toMatch(/'colour' does not exist/);
    expect(diagnostics(call("gw.POST('/payments/', { body: { amount: 25 } })")).join('\n')).toMatch(/not assignable to type 'string'/);
    expect(diagnostics(call("gw.GET('/paymentz/', {})")).join('\n')).toMatch(/'"\/paymentz\/"' is not assignable/);
  });
});
