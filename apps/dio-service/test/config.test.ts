import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../src/config.js';

describe('readConfig', () => {
  it('has safe defaults: port 8787 on loopback, no tokens, offline model', () => {
    const config = readConfig({});
    expect(config).toMatchObject({ port: 8787, host: '127.0.0.1', adminToken: undefined, model: undefined });
    expect(config.tokens.size).toBe(0);
    expect(config.dataDir).toMatch(/dio-service$/);
  });

  it('parses tokens, admin token, data dir and the model variables', () => {
    const config = readConfig({
      PORT: '9000',
      DIO_DATA_DIR: '/tmp/dio',
      DIO_TOKENS: 'alice-token-1:alice, bob-token-22:bob',
      DIO_ADMIN_TOKEN: 'admin-token-1',
      TROUPE_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1',
      TROUPE_MODEL: 'qwen2.5',
    });
    expect(config.port).toBe(9000);
    expect(config.dataDir).toBe('/tmp/dio');
    expect([...config.tokens]).toEqual([
      ['alice-token-1', 'alice'],
      ['bob-token-22', 'bob'],
    ]);
    expect(config.model).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5', apiKey: undefined });
  });

  it.each([
    [{ PORT: 'x' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DIO_TOKENS: 'short:alice' }, 'DIO_TOKENS'],
    [{ DIO_TOKENS: 'no-user-here-123' }, 'DIO_TOKENS'],
    [{ DIO_TOKENS: `token-12345678:${'u'.repeat(257)}` }, 'DIO_TOKENS'],
    [{ DIO_TOKENS: 'token-12345678:a,token-12345678:b' }, 'same token twice'],
    [{ DIO_ADMIN_TOKEN: 'short' }, 'DIO_ADMIN_TOKEN'],
    [{ TROUPE_MODEL_BASE_URL: 'http://127.0.0.1:1/v1' }, 'TROUPE_MODEL'],
  ])('rejects %j naming %s, without echoing secrets', (env, named) => {
    let error: unknown;
    try {
      readConfig(env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(named);
    expect((error as ConfigError).message).not.toContain('token-12345678');
  });
});
