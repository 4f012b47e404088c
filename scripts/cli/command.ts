/**
 * What every command of the operator CLI (`scripts/gateway.ts`) is made of: its usage line, its options, what
 * it runs and how its result reads as text; and the option readers the command groups share.
 */
import type { ParseArgsConfig } from 'node:util';
import { parseScopes } from '../../shared/domain/scopes.js';
import type { Scope } from '../../shared/domain/scopes.js';

type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | undefined>;

export interface Command {
  readonly usage: string;
  readonly summary: string;
  readonly options: Options;
  run(values: Values, positionals: string[]): Promise<unknown>;
  /** Talks to neither the local stack nor the deployment's table (e.g. it deploys contracts on a chain). */
  readonly tableFree?: boolean;
  /** Text printed without --json. */
  text?(result: unknown): string;
}

/** A group of commands by name (`tenant`: create, list, ...). */
export type CommandGroup = Record<string, Command>;

/** Bad command-line input: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}

export const json = { type: 'boolean', default: false } as const;
export const str = { type: 'string' } as const;

export const need = (values: Values, name: string): string => {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
};

export const scopesOpt = (values: Values): Scope[] | undefined => {
  if (typeof values.scopes !== 'string') return undefined;
  const { scopes, unknown } = parseScopes(values.scopes.replace(/,/g, ' '));
  if (unknown.length) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);
  return scopes;
};

export const intOpt = (values: Values, name: string): number | undefined => {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
  return Number(v);
};

/** A USD limit: the amount as given (the use case checks it), or `default` for the platform's (null). */
export const limitOpt = (values: Values, name: string): string | null | undefined => {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new UsageError(`--${name} must be a USD amount or default`);
  return v === 'default' ? null : v;
};

export const boolOpt = (values: Values, name: string): boolean | undefined => {
  const v = values[name];
  if (v === undefined) return undefined;
  if (v !== 'true' && v !== 'false') throw new UsageError(`--${name} must be true or false`);
  return v === 'true';
};
