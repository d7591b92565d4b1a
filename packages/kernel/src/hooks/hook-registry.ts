import { KernelError } from '../errors.js';
import { HOOK_NAMES, type HookEntry, type HookName, type RegisteredHandler } from './hook-types.js';

const ORDER_RANK = { pre: 0, normal: 1, post: 2 } as const;

/**
 * Collects handlers while plugins set up, then freezes them sorted pre → normal → post,
 * keeping registration order inside each group (a stable sort). Sorting happens once at boot.
 */
export class HookRegistry {
  readonly #handlers = new Map<HookName, RegisteredHandler<HookName>[]>(HOOK_NAMES.map((name) => [name, []]));
  #frozen = false;

  /**
   * Registers a handler for `plugin`.
   * @throws {KernelError} KERNEL_PLUGIN_INVALID for a non-function handler, an unknown order,
   *   or a registration after boot
   */
  add<K extends HookName>(plugin: string, hook: K, entry: HookEntry<K>): void {
    if (this.#frozen) {
      throw new KernelError('KERNEL_PLUGIN_INVALID', `Plugin "${plugin}" registered a ${hook} handler after boot; register hooks in setup()`, {
        plugin,
        hook,
      });
    }
    const options = typeof entry === 'function' ? { handler: entry } : entry;
    if (typeof options?.handler !== 'function') {
      throw new KernelError('KERNEL_PLUGIN_INVALID', `Plugin "${plugin}" registered a ${hook} handler that is not a function`, { plugin, hook });
    }
    if (options.order !== undefined && options.order !== 'pre' && options.order !== 'post') {
      throw new KernelError('KERNEL_PLUGIN_INVALID', `Plugin "${plugin}" used order "${String(options.order)}" for ${hook}; use "pre" or "post"`, {
        plugin,
        hook,
      });
    }
    if (options.timeoutMs !== undefined && !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0)) {
      throw new KernelError('KERNEL_PLUGIN_INVALID', `Plugin "${plugin}" gave ${hook} a timeout that is not a positive number`, { plugin, hook });
    }
    this.#handlers.get(hook)?.push({
      plugin,
      hook,
      handler: options.handler as RegisteredHandler<HookName>['handler'],
      order: options.order ?? 'normal',
      degradable: options.degradable === true,
      timeoutMs: options.timeoutMs,
    });
  }

  /** Sorts every hook's handlers once; later `add` calls fail. */
  freeze(): void {
    for (const [hook, list] of this.#handlers) {
      const sorted = list
        .map((handler, index) => ({ handler, index }))
        .sort((a, b) => ORDER_RANK[a.handler.order] - ORDER_RANK[b.handler.order] || a.index - b.index)
        .map(({ handler }) => handler);
      this.#handlers.set(hook, Object.freeze(sorted) as RegisteredHandler<HookName>[]);
    }
    this.#frozen = true;
  }

  /** The sorted handlers of one hook. */
  get<K extends HookName>(hook: K): readonly RegisteredHandler<K>[] {
    return (this.#handlers.get(hook) ?? []) as unknown as readonly RegisteredHandler<K>[];
  }
}
