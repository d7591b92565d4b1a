import { execFileSync } from 'node:child_process';
import { createHarness, KernelError, type Logger, Tokens } from '@troupe/kernel';
import { inject, injectable } from '@troupe/kernel/di';
import { MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
import { describe, expect, it } from 'vitest';
import { rejectionOf, testPlugin } from './helpers.js';

const Greeting = Symbol.for('@troupe/test/Greeting');

@injectable()
class Greeter {
  readonly greeting: string;
  readonly logger: Logger;
  constructor(@inject(Greeting) greeting: string, @inject(Tokens.Logger) logger: Logger) {
    this.greeting = greeting;
    this.logger = logger;
  }
}

const boot = (plugin: ReturnType<typeof testPlugin>, provide = [] as Parameters<typeof createHarness>[0]['provide']) =>
  createHarness({ plugins: [plugin], model: new ScriptedChatModel(), sessionLog: new MemorySessionLog(), ...(provide ? { provide } : {}) });

describe('DI that composes', () => {
  it('builds plugin services with their @inject dependencies; an app override wins over the plugin default', async () => {
    const seen: Greeter[] = [];
    const plugin = testPlugin('greeter', (ctx) => {
      ctx.provide({ token: Greeting, useValue: 'plugin default' });
      seen.push(ctx.resolve(Greeter));
    });
    const plain = await boot(plugin);
    const overridden = await boot(plugin, [{ token: Greeting, useValue: 'from the app' }]);
    expect(seen.map((greeter) => greeter.greeting)).toEqual(['plugin default', 'from the app']);
    await Promise.all([plain.close(), overridden.close()]);
  });

  it('overrides kernel services too, and factories and classes are built once per harness', async () => {
    const lines: string[] = [];
    const logger: Logger = { debug: () => {}, info: (message) => lines.push(message), warn: () => {}, error: () => {}, child: () => logger };
    let built = 0;
    const resolved: unknown[] = [];
    const plugin = testPlugin('counter', (ctx) => {
      ctx.resolve(Tokens.Logger).info('hello');
      resolved.push(ctx.resolve(Greeting), ctx.resolve(Greeting));
    });
    const harness = await boot(plugin, [
      { token: Tokens.Logger, useValue: logger },
      { token: Greeting, useFactory: () => `built ${++built}` },
    ]);
    expect(lines).toContain('hello');
    expect(resolved).toEqual(['built 1', 'built 1']);
    const second = await boot(plugin, [{ token: Greeting, useFactory: () => `built ${++built}` }]);
    expect(resolved.at(-1)).toBe('built 2'); // one container per harness: nothing shared
    await Promise.all([harness.close(), second.close()]);
  });

  it('a required token nothing provides is a boot error that names it', async () => {
    const error = await rejectionOf(boot(testPlugin('needy', (ctx) => void ctx.resolve(Greeter))));
    expect(KernelError.isInstance(error) && error.code).toBe('KERNEL_SERVICE_MISSING');
    expect((error as KernelError).plugin).toBe('needy');
    expect((error as Error).message).toContain('@troupe/test/Greeting');
    expect((error as KernelError).details).toEqual({ token: '@troupe/test/Greeting' });
  });

  it('importing the kernel main entry does not patch the global Reflect', () => {
    const script = "await import('@troupe/kernel'); console.log(typeof Reflect.getMetadata);";
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('..', import.meta.url), encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect(out.trim()).toBe('undefined');
  });
});
