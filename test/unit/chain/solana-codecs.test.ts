import { generateKeyPairSync } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import {
  AccountRole,
  address,
  decompileTransactionMessage,
  getAddressEncoder,
  getCompiledTransactionMessageDecoder,
  getProgramDerivedAddress,
  getTransactionDecoder,
} from '@solana/kit';
import fc from 'fast-check';
import { DerError } from '../../../shared/chain/signer/der.js';
import { encodeEd25519Spki, parseEd25519Spki } from '../../../shared/chain/signer/ed25519.js';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  associatedTokenAddress,
  createProgramAddress,
  decodeSolanaAddress,
  findProgramAddress,
  isOnEd25519Curve,
  isSolanaAddress,
  solanaAddressFromPublicKey,
} from '../../../shared/chain/solana/address.js';
import {
  MAX_TRANSACTION_BYTES,
  accountRole,
  buildTokenTransferMessage,
  compileLegacyMessage,
  decodeShortVec,
  decodeTransaction,
  encodeShortVec,
  mintToCheckedInstruction,
  serializeTransaction,
  signTransaction,
  systemTransferInstruction,
  transactionSignatureOf,
  transferCheckedInstruction,
} from '../../../shared/chain/solana/transaction.js';
import type { MessageSigner } from '../../../shared/chain/solana/transaction.js';

const USDT_MAINNET = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const USDC_MAINNET = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

const keypair = (seed: number): MessageSigner & { address: string } => {
  const secret = new Uint8Array(32).fill(seed);
  const addr = base58.encode(ed25519.getPublicKey(secret));
  return { address: addr, getAddress: () => Promise.resolve(addr), signMessage: (m) => Promise.resolve(ed25519.sign(m, secret)) };
};

describe('Ed25519 SubjectPublicKeyInfo (what KMS GetPublicKey returns)', () => {
  it('reads the key out of a DER SPKI made by node crypto, and encodes it back byte for byte', () => {
    for (let i = 0; i < 5; i++) {
      const { publicKey } = generateKeyPairSync('ed25519');
      const der = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }));
      const raw = parseEd25519Spki(der);
      expect(raw).toHaveLength(32);
      expect(Buffer.from(raw).toString('base64url')).toBe(publicKey.export({ format: 'jwk' }).x);
      expect(hex(encodeEd25519Spki(raw))).toBe(hex(der));
    }
  });

  it('refuses anything else: another curve, a truncated key, trailing bytes', () => {
    const secp = new Uint8Array(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({ format: 'der', type: 'spki' }));
    const x25519 = new Uint8Array(generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' }));
    const good = new Uint8Array(generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }));
    for (const bad of [secp, x25519, good.subarray(0, 43), Uint8Array.of(...good, 0)]) expect(() => parseEd25519Spki(bad)).toThrow(DerError);
    expect(() => encodeEd25519Spki(new Uint8Array(31))).toThrow(DerError);
  });
});

describe('Solana addresses', () => {
  it('is the base58 of the Ed25519 public key, 32 bytes, nothing else', () => {
    expect(solanaAddressFromPublicKey(new Uint8Array(32))).toBe(SYSTEM_PROGRAM_ADDRESS);
    expect(hex(decodeSolanaAddress(TOKEN_PROGRAM_ADDRESS))).toBe('06ddf6e1d765a193d9cbe146ceeb79ac1cb485ed5f5b37913a8cf5857eff00a9');
    expect(isSolanaAddress(USDT_MAINNET)).toBe(true);
    expect(isSolanaAddress('1111111111111111111111111111111')).toBe(false);
    expect(isSolanaAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(false);
    expect(isSolanaAddress('So11111111111111111111111111111111111111112O')).toBe(false);
    expect(() => solanaAddressFromPublicKey(new Uint8Array(33))).toThrow();
  });

  it('derives associated token accounts as mainnet has them (spl-token CLI and SDK vectors)', () => {
    expect(associatedTokenAddress('AAAGuCgkmxYDTiBvzx1QT5XEjqXPRtQaiEXQo4gatD2o', USDC_MAINNET)).toBe('Cra8woRQhnHsGAmFWcCN1m7A9J44ykNfGpehi6dMBuKR');
    expect(associatedTokenAddress('3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG', USDC_MAINNET)).toBe('3uetDDizgTtadDHZzyy9BqxrjQcozMEkxzbKhfZF4tG3');
    expect(
      associatedTokenAddress('AAAGuCgkmxYDTiBvzx1QT5XEjqXPRtQaiEXQo4gatD2o', 'CKfatsPMUf8SkiURsDXs7eK6GWb4Jsd6UDbs7twMCWxo', TOKEN_2022_PROGRAM_ADDRESS),
    ).toBe('GPtCoaz35vdCrFbyhxcRrkYvECrUkrBX6CoRZEv8EQDw');
  });

  it('finds the same program derived address and bump as @solana/kit, for any owner of mainnet USDT', async () => {
    const encoder = getAddressEncoder();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 32, maxLength: 32 }), async (ownerBytes) => {
        const owner = base58.encode(ownerBytes);
        const [expected, bump] = await getProgramDerivedAddress({
          programAddress: address(ASSOCIATED_TOKEN_PROGRAM_ADDRESS),
          seeds: [encoder.encode(address(owner)), encoder.encode(address(TOKEN_PROGRAM_ADDRESS)), encoder.encode(address(USDT_MAINNET))],
        });
        const found = findProgramAddress(
          [ownerBytes, decodeSolanaAddress(TOKEN_PROGRAM_ADDRESS), decodeSolanaAddress(USDT_MAINNET)],
          ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
        );
        expect(found).toEqual({ address: expected, bump });
        expect(associatedTokenAddress(owner, USDT_MAINNET)).toBe(expected);
        expect(isOnEd25519Curve(decodeSolanaAddress(expected))).toBe(false);
      }),
      { numRuns: 40, seed: 14 },
    );
  });

  it('creates program addresses for explicit bumps, off the curve only; bounds the seeds', () => {
    const seeds = [new TextEncoder().encode('custody')];
    const { address: pda, bump } = findProgramAddress(seeds, ASSOCIATED_TOKEN_PROGRAM_ADDRESS);
    expect(createProgramAddress([...seeds, Uint8Array.of(bump)], ASSOCIATED_TOKEN_PROGRAM_ADDRESS)).toBe(pda);
    expect(isOnEd25519Curve(ed25519.getPublicKey(new Uint8Array(32).fill(1)))).toBe(true);
    expect(() => findProgramAddress([new Uint8Array(33)], ASSOCIATED_TOKEN_PROGRAM_ADDRESS)).toThrow('at most 32 bytes');
    expect(() =>
      findProgramAddress(
        Array.from({ length: 16 }, () => new Uint8Array(1)),
        ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
      ),
    ).toThrow('at most 16 seeds');
  });
});

describe('compact-u16 (shortvec)', () => {
  it.each([
    [0, '00'],
    [127, '7f'],
    [128, '8001'],
    [255, 'ff01'],
    [16383, 'ff7f'],
    [16384, '808001'],
    [65535, 'ffff03'],
  ])('%i is %s', (value, encoded) => {
    expect(hex(encodeShortVec(value))).toBe(encoded);
    expect(decodeShortVec(Buffer.from(encoded, 'hex'), 0)).toEqual({ value, end: encoded.length / 2 });
  });

  it('refuses out-of-range and non-minimal encodings', () => {
    expect(() => encodeShortVec(65536)).toThrow(RangeError);
    expect(() => decodeShortVec(Uint8Array.of(0x80, 0x00), 0)).toThrow('non-minimal');
    expect(() => decodeShortVec(Uint8Array.of(0xff, 0xff, 0x7f), 0)).toThrow('overflows');
    expect(() => decodeShortVec(Uint8Array.of(0x80), 0)).toThrow('truncated');
  });
});

describe('legacy transactions', () => {
  const payer = keypair(1);
  const owner = keypair(2);
  const recipient = keypair(3).address;
  const blockhash = 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N';

  it('TransferChecked and system Transfer data: tag, u64 amount little-endian (and decimals)', () => {
    const ix = transferCheckedInstruction({
      source: payer.address,
      mint: USDT_MAINNET,
      destination: recipient,
      authority: owner.address,
      amount: 1_000_000n,
      decimals: 6,
    });
    expect(hex(ix.data)).toBe('0c40420f000000000006');
    expect(ix.accounts.map((a) => [a.signer, a.writable])).toEqual([
      [false, true],
      [false, false],
      [false, true],
      [true, false],
    ]);
    expect(hex(systemTransferInstruction({ from: payer.address, to: recipient, lamports: 5000n }).data)).toBe('020000008813000000000000');
  });

  it('MintToChecked data: tag 14, u64 amount and decimals; decimals outside a u8 are refused by both checked instructions', () => {
    const mint = mintToCheckedInstruction({ mint: USDT_MAINNET, destination: recipient, authority: owner.address, amount: 2_500_000n, decimals: 6 });
    expect(hex(mint.data)).toBe('0ea025260000000000' + '06');
    expect(mint.accounts.map((a) => [a.address, a.signer, a.writable])).toEqual([
      [USDT_MAINNET, false, true],
      [recipient, false, true],
      [owner.address, true, false],
    ]);
    expect(() => mintToCheckedInstruction({ mint: USDT_MAINNET, destination: recipient, authority: owner.address, amount: 1n, decimals: 256 })).toThrow(
      RangeError,
    );
    expect(() =>
      transferCheckedInstruction({ source: payer.address, mint: USDT_MAINNET, destination: recipient, authority: owner.address, amount: 1n, decimals: -1 }),
    ).toThrow(RangeError);
  });

  it('compiles a token transfer that @solana/kit decompiles to the same instructions, accounts and roles', () => {
    const message = buildTokenTransferMessage({
      feePayer: payer.address,
      owner: owner.address,
      recipient,
      mint: USDT_MAINNET,
      decimals: 6,
      amount: 12_345_678n,
      recentBlockhash: blockhash,
      computeUnitLimit: 40_000,
      computeUnitPrice: 1_000n,
    });
    expect(message.signers).toEqual([payer.address, owner.address]);
    expect(message.source).toBe(associatedTokenAddress(owner.address, USDT_MAINNET));
    expect(message.destination).toBe(associatedTokenAddress(recipient, USDT_MAINNET));

    const compiled = getCompiledTransactionMessageDecoder().decode(message.bytes);
    const decompiled = decompileTransactionMessage(compiled);
    expect(decompiled.version).toBe('legacy');
    expect(decompiled.feePayer.address).toBe(payer.address);
    expect((decompiled.lifetimeConstraint as { blockhash: string }).blockhash).toBe(blockhash);
    const instructions: readonly { programAddress: string; accounts?: readonly { address: string; role: AccountRole }[]; data?: ArrayLike<number> }[] =
      decompiled.instructions;
    const ixs = instructions.map((ix) => ({
      program: ix.programAddress,
      accounts: (ix.accounts ?? []).map((a) => [a.address, a.role]),
      data: hex(Uint8Array.from(ix.data ?? [])),
    }));
    expect(ixs).toEqual([
      { program: COMPUTE_BUDGET_PROGRAM_ADDRESS, accounts: [], data: '02409c0000' },
      { program: COMPUTE_BUDGET_PROGRAM_ADDRESS, accounts: [], data: '03e803000000000000' },
      {
        program: ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
        accounts: [
          [payer.address, AccountRole.WRITABLE_SIGNER],
          [message.destination, AccountRole.WRITABLE],
          [recipient, AccountRole.READONLY],
          [USDT_MAINNET, AccountRole.READONLY],
          [SYSTEM_PROGRAM_ADDRESS, AccountRole.READONLY],
          [TOKEN_PROGRAM_ADDRESS, AccountRole.READONLY],
        ],
        data: '01',
      },
      {
        program: TOKEN_PROGRAM_ADDRESS,
        accounts: [
          [message.source, AccountRole.WRITABLE],
          [USDT_MAINNET, AccountRole.READONLY],
          [message.destination, AccountRole.WRITABLE],
          [owner.address, AccountRole.READONLY_SIGNER],
        ],
        data: '0c4e61bc000000000006',
      },
    ]);
  });

  it('signs with every required signer; the wire form decodes (ours and kit) to the same message, the id is the fee payer signature', async () => {
    const message = buildTokenTransferMessage({
      feePayer: payer.address,
      owner: owner.address,
      recipient,
      mint: USDT_MAINNET,
      decimals: 6,
      amount: 1n,
      recentBlockhash: blockhash,
    });
    const signed = await signTransaction(message, [owner, payer]);
    const kitTx = getTransactionDecoder().decode(signed.wire);
    expect(hex(Uint8Array.from(kitTx.messageBytes))).toBe(hex(message.bytes));
    for (const signer of [payer, owner]) {
      const signature = kitTx.signatures[address(signer.address)];
      expect(signature && ed25519.verify(Uint8Array.from(signature), message.bytes, decodeSolanaAddress(signer.address))).toBe(true);
    }
    expect(signed.signature).toBe(base58.encode(Uint8Array.from(kitTx.signatures[address(payer.address)] as Uint8Array)));
    expect(transactionSignatureOf(signed.wire)).toBe(signed.signature);
    expect(Buffer.from(signed.base64, 'base64')).toEqual(Buffer.from(signed.wire));

    const decoded = decodeTransaction(signed.wire);
    expect(decoded).toMatchObject({ version: 'legacy', accountKeys: message.accountKeys, recentBlockhash: blockhash, lookups: 0 });
    expect(decoded.header).toEqual({ requiredSignatures: 2, readonlySigned: 1, readonlyUnsigned: 5 });
    expect(message.accountKeys.map((_, i) => accountRole(decoded, i))).toEqual(
      message.accountKeys.map((key) => {
        const role = [payer.address, owner.address].includes(key) ? { signer: true } : { signer: false };
        const writable = [payer.address, message.source, message.destination].includes(key);
        return { ...role, writable };
      }),
    );
    await expect(signTransaction(message, [payer])).rejects.toMatchObject({ code: 'SOLANA_TX_SIGNER_MISSING' });
  });

  it('refuses malformed wire bytes, a writable program, an oversized transaction', () => {
    const message = compileLegacyMessage({
      feePayer: payer.address,
      recentBlockhash: blockhash,
      instructions: [systemTransferInstruction({ from: payer.address, to: recipient, lamports: 1n })],
    });
    const wire = serializeTransaction(message, [new Uint8Array(64)]).wire;
    expect(() => decodeTransaction(wire.subarray(0, wire.length - 1))).toThrow();
    expect(() => decodeTransaction(Uint8Array.of(...wire, 0))).toThrow('trailing');
    expect(() =>
      compileLegacyMessage({
        feePayer: payer.address,
        recentBlockhash: blockhash,
        instructions: [
          { programAddress: recipient, accounts: [], data: new Uint8Array(0) },
          systemTransferInstruction({ from: payer.address, to: recipient, lamports: 1n }),
        ],
      }),
    ).toThrow('writable');
    const big = compileLegacyMessage({
      feePayer: payer.address,
      recentBlockhash: blockhash,
      instructions: [{ programAddress: SYSTEM_PROGRAM_ADDRESS, accounts: [], data: new Uint8Array(MAX_TRANSACTION_BYTES) }],
    });
    expect(() => serializeTransaction(big, [new Uint8Array(64)])).toThrow(expect.objectContaining({ code: 'SOLANA_TX_TOO_LARGE' }));
    expect(() =>
      buildTokenTransferMessage({
        feePayer: payer.address,
        owner: owner.address,
        recipient,
        mint: USDT_MAINNET,
        decimals: 6,
        amount: 0n,
        recentBlockhash: blockhash,
      }),
    ).toThrow(RangeError);
  });
});
