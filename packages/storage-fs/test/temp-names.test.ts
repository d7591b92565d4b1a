import { describe, expect, it } from 'vitest';
import { isTempName, tempName, tempOwner, uniqueHex } from '../src/fs/temp-names.js';
import { newLockOwner } from '../src/fs/lock-owner.js';

describe('temp names and lock nonces', () => {
  it('never repeat within the process, always match the temp pattern and carry this pid', () => {
    const names = Array.from({ length: 20_000 }, () => tempName());
    expect(new Set(names).size).toBe(names.length);
    for (const name of names.slice(0, 200)) {
      expect(isTempName(name), name).toBe(true);
      expect(tempOwner(name)).toBe(process.pid);
    }
    const hexes = Array.from({ length: 1_000 }, () => uniqueHex());
    expect(hexes.every((hex) => /^[0-9a-f]{12}$/.test(hex))).toBe(true);
    expect(new Set([...hexes, ...names.map((name) => name.slice(-12))]).size).toBe(hexes.length + names.length);
  });

  it('gives every lock acquisition its own nonce', () => {
    const nonces = Array.from({ length: 5_000 }, () => newLockOwner().nonce);
    expect(new Set(nonces).size).toBe(nonces.length);
  });
});
