import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fsStorage, resolveStorageRoot } from '../src/index.js';

const saved = process.env.TROUPE_HOME;
afterEach(() => {
  if (saved === undefined) delete process.env.TROUPE_HOME;
  else process.env.TROUPE_HOME = saved;
});

describe('storage root', () => {
  it('uses the option, else TROUPE_HOME, else ~/.troupe', () => {
    process.env.TROUPE_HOME = '/srv/troupe-home';
    expect(resolveStorageRoot('/explicit')).toBe('/explicit');
    expect(resolveStorageRoot()).toBe('/srv/troupe-home');
    delete process.env.TROUPE_HOME;
    expect(resolveStorageRoot()).toBe(join(homedir(), '.troupe'));
    expect(fsStorage({ root: 'relative/x' }).root).toBe(join(process.cwd(), 'relative/x'));
  });
});
