import { definePlugin, type PluginDefinition, type PluginSetupContext } from '@troupe/kernel';

/** A plugin for tests: name + setup, version and kernel range filled in. */
export function testPlugin(name: string, setup: (ctx: PluginSetupContext<unknown>) => void | Promise<void>, extra: Partial<PluginDefinition> = {}): PluginDefinition {
  return definePlugin({ name, version: '1.0.0', kernel: '^0.1.0', setup, ...extra });
}

/** Rejection of a promise, or a failure when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

/** A promise with its resolve function exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
