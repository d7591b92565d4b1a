import { execFileSync } from 'node:child_process';
import { createHarness, createModelRegistry, type HarnessOptions, KernelError, type Logger, type TurnContext, Tokens } from '@troupe/kernel';
import { type InjectionToken, inject, injectable } from '@troupe/kernel/di';
import { ManualClock, MemorySessionLog, ScriptedChatModel } from '@troupe/kernel/testing';
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

const boot = (plugin: ReturnType<typeof testPlugin>, provide = [] as HarnessOptions['provide'], options: Partial<HarnessOptions> = {}) =>
  createHarness({ plugins: [plugin], model: new ScriptedChatModel(), sessionLog: new MemorySessionLog(), ...(provide ? { provide } : {}), ...options });

/**
 * A plugin that records what it gets for `token`: resolved at setup, and what a turn's handlers
 * see through their context (`fromTurn`), so a test proves an app override reaches both.
 */
function seenByPlugin<T>(token: InjectionToken<T>, fromTurn: (turn: TurnContext) => T) {
  const seen: { atSetup?: T; inTurn?: T } = {};
  const plugin = testPlugin('observer', (ctx) => {
    seen.atSetup = ctx.resolve(token);
    ctx.hooks.preActor((_input, turn) => {
      seen.inTurn = fromTurn(turn);
    });
  });
  return { plugin, seen };
}

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

  it('an app-provided Tokens.Clock reaches plugins and drives the kernel: event times and the turn deadline', async () => {
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    const { plugin, seen } = seenByPlugin(Tokens.Clock, (turn) => turn.clock);
    const model = new ScriptedChatModel({ byStage: { actor: ['in time', () => new Promise<string>(() => {})] } });
    const harness = await boot(plugin, [{ token: Tokens.Clock, useValue: clock }], { model, turnDeadlineMs: 30_000 });
    const first = await harness.runTurn({ sessionId: 's', text: 'hi' });
    expect(first.events[0]?.at).toBe('2030-01-01T00:00:00.000Z');
    expect(seen.atSetup).toBe(clock);
    expect(seen.inTurn).toBe(clock);
    // The second actor call never answers: only the app's virtual clock can end the turn.
    const second = rejectionOf(harness.runTurn({ sessionId: 's', text: 'again' }));
    await clock.advance(30_000);
    expect(((await second) as KernelError).code).toBe('KERNEL_TURN_DEADLINE_EXCEEDED');
    const failed = (await harness.resolve(Tokens.SessionLog).read('s')).find((event) => event.type === 'kernel/turn-failed');
    expect(failed?.at).toBe('2030-01-01T00:00:30.000Z');
    await harness.close();
  });

  it('an app-provided Tokens.ModelRegistry answers the actor and reaches plugins, over the `model` option', async () => {
    const appModel = new ScriptedChatModel({ id: 'from-the-app', fallback: 'the app model answered' });
    const registry = createModelRegistry(appModel);
    for (const options of [{}, { model: undefined }] as Partial<HarnessOptions>[]) {
      const { plugin, seen } = seenByPlugin(Tokens.ModelRegistry, (turn) => turn.models);
      // With `model` left at boot's default the override still wins; without it the provider is enough.
      const harness = await boot(plugin, [{ token: Tokens.ModelRegistry, useValue: registry }], options);
      expect((await harness.runTurn({ sessionId: 's', text: 'hi' })).reply).toBe('the app model answered');
      expect(seen.atSetup).toBe(registry);
      expect(seen.inTurn).toBe(registry);
      expect(harness.resolve(Tokens.ModelRegistry)).toBe(registry);
      await harness.close();
    }
    expect(appModel.callsFor('actor')).toHaveLength(2);
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
