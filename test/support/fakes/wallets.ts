import { ConflictError, ValidationError } from '../../../shared/domain/errors.js';
import type { EventDraft } from '../../../shared/domain/events.js';
import type { TransferChange, WalletRef, WalletState, WalletTransferState } from '../../../shared/domain/wallets.js';
import { WalletGoneError } from '../../../shared/domain/wallets.js';
import type { WriteItem } from '../../../shared/usecases/ports.js';
import type { TransferFilter, WalletRepository, WalletsPorts, WalletTransferRepository } from '../../../shared/usecases/wallets/ports.js';
import { VirtualClock } from '../clock.js';
import { InMemoryLedger } from './ledger.js';

/**
 * The wallet repository in memory, with the rules of the DynamoDB one (shared/store/wallets.ts): the next integer
 * id of the tenant (never reused), an external id unique per tenant, saves and removals conditioned on the version
 * read, and a count. Events are recorded for assertions.
 */
export class InMemoryWallets implements WalletRepository {
  readonly states = new Map<string, WalletState>();
  readonly events: (EventDraft & { readonly walletId: string })[] = [];
  private readonly sequences = new Map<string, number>();

  private key = (tenantId: string, walletId: string) => `${tenantId}|${walletId}`;
  private mine = (tenantId: string) => [...this.states.values()].filter((w) => w.tenantId === tenantId).sort((a, b) => a.id - b.id);

  private checkExternal(w: WalletState): void {
    if (w.externalId === null) return;
    if (this.mine(w.tenantId).some((o) => o.walletId !== w.walletId && o.externalId === w.externalId)) {
      throw new ValidationError({ external_id: ['A wallet with this external_id already exists.'] });
    }
  }

  async get(tenantId: string, ref: WalletRef): Promise<WalletState | null> {
    return this.mine(tenantId).find((w) => (ref.kind === 'id' ? w.id === ref.id : w.walletId === ref.walletId)) ?? null;
  }

  async byExternalId(tenantId: string, externalId: string): Promise<WalletState | null> {
    return this.mine(tenantId).find((w) => w.externalId === externalId) ?? null;
  }

  async create(wallet: WalletState, events: (stored: WalletState) => readonly EventDraft[]): Promise<WalletState> {
    const id = (this.sequences.get(wallet.tenantId) ?? 0) + 1;
    const w: WalletState = { ...wallet, id, version: 1 };
    this.checkExternal(w);
    this.sequences.set(w.tenantId, id);
    this.states.set(this.key(w.tenantId, w.walletId), w);
    this.events.push(...events(w).map((e) => ({ ...e, walletId: w.walletId })));
    return w;
  }

  async save(previous: WalletState, next: WalletState): Promise<WalletState> {
    const stored = this.states.get(this.key(previous.tenantId, previous.walletId));
    if (!stored || stored.version !== previous.version) throw new ConflictError('The wallet changed meanwhile; retry.');
    const w = { ...next, version: previous.version + 1 };
    this.checkExternal(w);
    this.states.set(this.key(w.tenantId, w.walletId), w);
    return w;
  }

  async remove(wallet: WalletState): Promise<void> {
    const stored = this.states.get(this.key(wallet.tenantId, wallet.walletId));
    if (!stored || stored.version !== wallet.version) throw new ConflictError('The wallet changed meanwhile; retry.');
    this.states.delete(this.key(wallet.tenantId, wallet.walletId));
  }

  async list(tenantId: string, page: { limit: number; offset: number }) {
    const all = this.mine(tenantId);
    return { wallets: all.slice(page.offset, page.offset + page.limit), total: all.length };
  }

  async all(tenantId: string): Promise<readonly WalletState[]> {
    return this.mine(tenantId);
  }
}

/**
 * Wallet transfers in memory: a creation posts its hold on the ledger (InsufficientBalanceError leaves nothing
 * stored) and stores version 1; a save is refused unless the stored version is the one read, then posts its entry.
 */
export class InMemoryWalletTransfers implements WalletTransferRepository {
  readonly states = new Map<string, WalletTransferState>();
  readonly events: (EventDraft & { readonly transferId: string })[] = [];
  readonly alsoWritten: WriteItem[] = [];

  constructor(
    readonly ledger: InMemoryLedger = new InMemoryLedger(),
    private readonly wallets?: InMemoryWallets,
  ) {}

  private key = (tenantId: string, id: string) => `${tenantId}|${id}`;

  async get(tenantId: string, transferId: string): Promise<WalletTransferState | null> {
    return this.states.get(this.key(tenantId, transferId)) ?? null;
  }

  private async commit(t: WalletTransferState, change: TransferChange, now: Date): Promise<void> {
    await this.ledger.post({ tenantId: t.tenantId, entryId: change.entry.entryId, entry: change.entry.entry, now });
    this.states.set(this.key(t.tenantId, t.id), t);
    this.events.push(...change.events.map((e) => ({ ...e, transferId: t.id })));
  }

  async create(change: TransferChange, now: Date, alsoWrite?: (stored: WalletTransferState) => readonly WriteItem[]): Promise<WalletTransferState> {
    const t = { ...change.state, version: 1 };
    if (this.states.has(this.key(t.tenantId, t.id))) throw new ConflictError('The transfer changed meanwhile; retry.');
    const also = alsoWrite?.(t) ?? [];
    await this.commit(t, change, now);
    this.alsoWritten.push(...also);
    return t;
  }

  async save(previous: WalletTransferState, change: TransferChange, now: Date): Promise<WalletTransferState> {
    const stored = this.states.get(this.key(previous.tenantId, previous.id));
    if (!stored || stored.version !== previous.version) throw new ConflictError('The transfer changed meanwhile; retry.');
    const t = { ...change.state, version: previous.version + 1 };
    // A completion credits its wallet only while the wallet exists.
    if (t.status === 'completed' && this.wallets && !(await this.wallets.get(t.tenantId, { kind: 'uuid', walletId: t.walletId }))) {
      throw new WalletGoneError(t.walletId);
    }
    await this.commit(t, change, now);
    return t;
  }

  async list(tenantId: string, filter: TransferFilter): Promise<readonly WalletTransferState[]> {
    return [...this.states.values()]
      .filter(
        (t) =>
          t.tenantId === tenantId &&
          (filter.walletId === undefined || t.walletId === filter.walletId) &&
          (filter.status === undefined || t.status === filter.status) &&
          (filter.type === undefined || t.type === filter.type) &&
          (filter.currency === undefined || t.currency === filter.currency),
      )
      .sort((a, b) => (a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt)));
  }
}

export interface FakeWallets {
  readonly deps: WalletsPorts;
  readonly wallets: InMemoryWallets;
  readonly transfers: InMemoryWalletTransfers;
  readonly ledger: InMemoryLedger;
  readonly clock: VirtualClock;
}

export function fakeWallets(): FakeWallets {
  const ledger = new InMemoryLedger();
  const wallets = new InMemoryWallets();
  const transfers = new InMemoryWalletTransfers(ledger, wallets);
  const clock = new VirtualClock(new Date('2026-01-01T00:00:00Z'));
  return { deps: { wallets, transfers, ledger, settings: { allowLoopbackCallbacks: false }, clock }, wallets, transfers, ledger, clock };
}
