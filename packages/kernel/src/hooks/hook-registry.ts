import { KernelError } from '../errors.js';
import { HOOK_NAMES, type HookEntry, type HookName, type RegisteredHandler } from './hook-types.js';

const ORDER_RANK = { pre: 0, normal: 1, post: 2 } as const;

/** The postReview handlers that start during the commit, and those that start after it. */
export interface PostReviewPhases {
  readonly duringCommit: readonly RegisteredHandler<'postReview'>[];
  readonly afterCommit: readonly RegisteredHandler<'postReview'>[];
}

const EMPTY_PHASES: PostReviewPhases = Object.freeze({ duringCommit: Object.freeze([]), afterCommit: Object.freeze([]) });

/**
 * Collects handlers while plugins set up, then freezes them sorted pre → normal → post,
 * keeping registration order inside each group (a stable sort). Sorting happens once at boot.
 */
export class HookRegistry {
  readonly #handlers = new Map<HookName, RegisteredHandler<HookName>[]>(HOOK_NAMES.map((name) => [name, []]));
  #frozen = false;
  #postReviewPhases: PostReviewPhases = EMPTY_PHASES;

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
    const requested = (options as { readonly duringCommit?: unknown }).duringCommit;
    const duringCommit = requested !== undefined && requested !== false;
    if (duringCommit && (hook !== 'postReview' || requested !== true)) {
      throw new KernelError(
        'KERNEL_PLUGIN_INVALID',
        hook === 'postReview'
          ? `Plugin "${plugin}" gave postReview a duringCommit that is not a boolean`
          : `Plugin "${plugin}" gave a ${hook} handler duringCommit; only postReview handlers can start during the commit`,
        { plugin, hook },
      );
    }
    this.#handlers.get(hook)?.push({
      plugin,
      hook,
      handler: options.handler as RegisteredHandler<HookName>['handler'],
      order: options.order ?? 'normal',
      degradable: options.degradable === true,
      timeoutMs: options.timeoutMs,
      duringCommit,
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
    const postReview = this.get('postReview');
    this.#postReviewPhases = Object.freeze({
      duringCommit: Object.freeze(postReview.filter((handler) => handler.duringCommit)),
      afterCommit: Object.freeze(postReview.filter((handler) => !handler.duringCommit)),
    });
    this.#frozen = true;
  }

  /**
   * The postReview handlers split by when they start (each group in the hook's order), computed
   * once at {@link freeze}: those registered with `duringCommit`, and the rest.
   */
  get postReviewPhases(): PostReviewPhases {
    return this.#postReviewPhases;
  }

  /** The sorted handlers of one hook. */
  get<K extends HookName>(hook: K): readonly RegisteredHandler<K>[] {
    return (this.#handlers.get(hook) ?? []) as unknown as readonly RegisteredHandler<K>[];
  }
}
