/**
 * Key storage of the local KMS: key metadata and key material, in memory, optionally persisted to
 * `<dataDir>/kms-keys.json` (written atomically after every change).
 *
 * LOCAL DEVELOPMENT ONLY: key material is stored in plain text.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type KeySpec = 'ECC_SECG_P256K1' | 'ECC_NIST_EDWARDS25519' | 'SYMMETRIC_DEFAULT';
export type KeyUsage = 'SIGN_VERIFY' | 'ENCRYPT_DECRYPT';

export interface StoredKey {
  keyId: string;
  /** Epoch seconds. */
  createdAt: number;
  description: string;
  keySpec: KeySpec;
  keyUsage: KeyUsage;
  enabled: boolean;
  /** Hex: the secp256k1 secret key, the 32-byte Ed25519 seed (RFC 8032 private key), or the 32-byte AES key. */
  material: string;
  tags: { TagKey: string; TagValue: string }[];
  /** Epoch seconds at which KMS would delete it (ScheduleKeyDeletion); the key is unusable meanwhile. */
  deletionDate?: number;
}

export interface StoredAlias {
  /** `alias/...` */
  name: string;
  keyId: string;
  createdAt: number;
}

interface FileFormat {
  version: 1;
  keys: StoredKey[];
  aliases: StoredAlias[];
}

export class KeyStore {
  readonly #file: string | undefined;
  readonly #keys = new Map<string, StoredKey>();
  readonly #aliases = new Map<string, StoredAlias>();

  constructor(dataDir?: string) {
    if (dataDir) {
      mkdirSync(dataDir, { recursive: true });
      this.#file = join(dataDir, 'kms-keys.json');
      if (existsSync(this.#file)) {
        const data = JSON.parse(readFileSync(this.#file, 'utf8')) as FileFormat;
        if (data.version !== 1) throw new Error(`${this.#file}: unsupported version ${String(data.version)}`);
        for (const key of data.keys) this.#keys.set(key.keyId, key);
        for (const alias of data.aliases) this.#aliases.set(alias.name, alias);
      }
    }
  }

  #persist(): void {
    if (!this.#file) return;
    const data: FileFormat = { version: 1, keys: [...this.#keys.values()], aliases: [...this.#aliases.values()] };
    const tmp = `${this.#file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.#file);
  }

  create(input: Omit<StoredKey, 'keyId' | 'createdAt' | 'enabled'>): StoredKey {
    const key: StoredKey = { ...input, keyId: randomUUID(), createdAt: Math.floor(Date.now() / 1000), enabled: true };
    this.#keys.set(key.keyId, key);
    this.#persist();
    return key;
  }

  get(keyId: string): StoredKey | undefined {
    return this.#keys.get(keyId);
  }

  setEnabled(keyId: string, enabled: boolean): void {
    const key = this.#keys.get(keyId);
    if (key) {
      key.enabled = enabled;
      this.#persist();
    }
  }

  /** Schedules (epoch seconds) or cancels (undefined) a key's deletion; a cancelled key comes back disabled, as in KMS. */
  setDeletion(keyId: string, deletionDate: number | undefined): void {
    const key = this.#keys.get(keyId);
    if (!key) return;
    if (deletionDate === undefined) delete key.deletionDate;
    else key.deletionDate = deletionDate;
    key.enabled = false;
    this.#persist();
  }

  list(): StoredKey[] {
    return [...this.#keys.values()];
  }

  alias(name: string): StoredAlias | undefined {
    return this.#aliases.get(name);
  }

  aliases(): StoredAlias[] {
    return [...this.#aliases.values()];
  }

  putAlias(name: string, keyId: string): void {
    this.#aliases.set(name, { name, keyId, createdAt: Math.floor(Date.now() / 1000) });
    this.#persist();
  }

  deleteAlias(name: string): boolean {
    const existed = this.#aliases.delete(name);
    if (existed) this.#persist();
    return existed;
  }
}
