import { createHarness, definePlugin, KERNEL_VERSION, KernelError, Tokens } from '@troupe/kernel';
import { injectable, inject } from '@troupe/kernel/di';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { rejectionOf, testPlugin } from './helpers.js';

const base = () => ({ model: new ScriptedChatModel(), sessionLog: new MemorySessionLog() });
const noop = () => {};

async function bootError(plugins: Parameters<typeof createHarness>[0]['plugins']): Promise<KernelError> {
  const error = await rejectionOf(createHarness({ ...base(), plugins }));
  expect(KernelError.isInstance(error)).toBe(true);
  return error as KernelError;
}

describe('boot checks', () => {
  it('rejects duplicate plugin names', async () => {
    const error = await bootError([testPlugin('twin', noop), testPlugin('twin', noop)]);
    expect(error).toMatchObject({ code: 'KERNEL_PLUGIN_DUPLICATE', plugin: 'twin' });
  });

  it('rejects a missing dependency', async () => {
    const error = await bootError([testPlugin('dio', noop, { dependencies: ['assembler'] })]);
    expect(error).toMatchObject({ code: 'KERNEL_PLUGIN_MISSING_DEPENDENCY', plugin: 'dio', details: { dependency: 'assembler' } });
  });

  it('accepts a dependency registered later (dependencies are checked, not ordered)', async () => {
    const harness = await createHarness({ ...base(), plugins: [testPlugin('dio', noop, { dependencies: ['assembler'] }), testPlugin('assembler', noop)] });
    await harness.close();
  });

  it('rejects an unsupported kernel range', async () => {
    const error = await bootError([testPlugin('future', noop, { kernel: '^9.0.0' })]);
    expect(error).toMatchObject({ code: 'KERNEL_PLUGIN_VERSION_MISMATCH', plugin: 'future' });
    expect(error.message).toContain(KERNEL_VERSION);
    const garbage = await bootError([testPlugin('garbage', noop, { kernel: 'not a range' })]);
    expect(garbage.code).toBe('KERNEL_PLUGIN_VERSION_MISMATCH');
  });

  it('rejects invalid config with every issue named', async () => {
    const plugin = definePlugin({
      name: 'configured',
      version: '1.0.0',
      configSchema: z.object({ baseUrl: z.url(), timeoutMs: z.number().positive() }),
      config: { baseUrl: 'nope', timeoutMs: -1 },
      setup: noop,
    });
    const error = await bootError([plugin]);
    expect(error.code).toBe('KERNEL_PLUGIN_CONFIG_INVALID');
    expect(error.message).toContain('baseUrl');
    expect(error.message).toContain('timeoutMs');
  });

  it('passes the schema output to setup', async () => {
    let seen: unknown;
    const plugin = definePlugin({
      name: 'defaults',
      version: '1.0.0',
      configSchema: z.object({ retries: z.number().default(3) }),
      config: {},
      setup: (ctx) => {
        seen = ctx.config;
      },
    });
    await (await createHarness({ ...base(), plugins: [plugin] })).close();
    expect(seen).toEqual({ retries: 3 });
  });

  it('rejects malformed plugins and failing setups', async () => {
    expect((await bootError([{ name: '', version: '1.0.0', setup: noop }])).code).toBe('KERNEL_PLUGIN_INVALID');
    expect((await bootError([{ name: 'x', version: 'one', setup: noop }])).code).toBe('KERNEL_PLUGIN_INVALID');
    const failing = await bootError([
      testPlugin('explodes', () => {
        throw new Error('no config file');
      }),
    ]);
    expect(failing).toMatchObject({ code: 'KERNEL_PLUGIN_SETUP_FAILED', plugin: 'explodes' });
    const badHook = await bootError([testPlugin('bad-hook', (ctx) => ctx.hooks.preActor({ handler: noop, order: 'first' as never }))]);
    expect(badHook.code).toBe('KERNEL_PLUGIN_INVALID');
  });

  it('needs exactly one of model and models, and a session log', async () => {
    const sessionLog = new MemorySessionLog();
    expect(await rejectionOf(createHarness({ sessionLog }))).toMatchObject({ code: 'KERNEL_HARNESS_INVALID' });
    const model = new ScriptedChatModel();
    const { createModelRegistry } = await import('@troupe/kernel');
    expect(await rejectionOf(createHarness({ sessionLog, model, models: createModelRegistry(model) }))).toMatchObject({ code: 'KERNEL_HARNESS_INVALID' });
  });

  it('refuses turns after close', async () => {
    const harness = await createHarness(base());
    await harness.close();
    expect(await rejectionOf(harness.runTurn({ sessionId: 's', text: 'hi' }))).toMatchObject({ code: 'KERNEL_HARNESS_CLOSED' });
  });

  it('keeps KERNEL_VERSION equal to package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(KERNEL_VERSION).toBe(pkg.version);
  });
});

describe('dependency injection', () => {
  const GreetingToken = Symbol.for('@troupe/test/Greeting');

  @injectable()
  class Greeter {
    readonly clockNow: number;
    readonly greeting: string;
    constructor(@inject(Tokens.Clock) clock: { now(): number }, @inject(GreetingToken) greeting: string) {
      this.clockNow = clock.now();
      this.greeting = greeting;
    }
  }

  it('gives each plugin a private scope and exposes shared values through the harness root', async () => {
    const resolved: Greeter[] = [];
    const plugin = testPlugin('greeter', (ctx) => {
      ctx.container.register(GreetingToken, { useValue: 'hello' });
      resolved.push(ctx.container.resolve(Greeter));
      ctx.expose(Symbol.for('@troupe/test/Exposed'), 'shared');
    });
    const other = testPlugin('other', (ctx) => {
      expect(ctx.container.isRegistered(GreetingToken, true)).toBe(false);
    });
    const harness = await createHarness({ ...base(), plugins: [plugin, other], clock: { now: () => 42, sleep: async () => {} } });
    expect(resolved[0]).toMatchObject({ clockNow: 42, greeting: 'hello' });
    expect(harness.resolve(Symbol.for('@troupe/test/Exposed'))).toBe('shared');
    expect(harness.resolve(Tokens.SessionLog)).toBeInstanceOf(MemorySessionLog);
    await harness.close();
  });

  it('isolates harnesses from each other', async () => {
    const token = Symbol.for('@troupe/test/Isolated');
    const one = await createHarness({ ...base(), plugins: [testPlugin('p', (ctx) => ctx.expose(token, 1))] });
    const two = await createHarness(base());
    expect(one.resolve(token)).toBe(1);
    expect(() => two.resolve(token)).toThrow();
    await Promise.all([one.close(), two.close()]);
  });
});
