import type { DependencyContainer, InjectionToken } from 'tsyringe';
import { Lifecycle } from 'tsyringe';
import { KernelError } from '../errors.js';

/** Resolves another service while building one (from the scope the service is built in). */
export type ServiceResolver = <T>(token: InjectionToken<T>) => T;

/**
 * How a service is provided under a token: a value, a class the container builds (its
 * constructor parameters carry `@inject(Token)`), or a factory. Classes and factories are built
 * once per harness.
 */
export type ServiceProvider<T = unknown> =
  | { readonly token: InjectionToken<T>; readonly useValue: T }
  | { readonly token: InjectionToken<T>; readonly useClass: new (...args: never[]) => T }
  | { readonly token: InjectionToken<T>; readonly useFactory: (resolve: ServiceResolver) => T };

/**
 * A readable name for a token (`@troupe/plugin-story/WebSearchProvider`).
 * @param token - a symbol, string or class token
 */
export function tokenName(token: InjectionToken<unknown>): string {
  if (typeof token === 'symbol') return token.description ?? token.toString();
  if (typeof token === 'function') return token.name;
  return String(token);
}

/**
 * Registers `provider` in `container`.
 * @param container - the harness root (app overrides) or a plugin scope (plugin defaults)
 * @param provider - the provider
 * @throws {KernelError} KERNEL_HARNESS_INVALID for a provider without token or way to build it
 */
export function registerProvider(container: DependencyContainer, provider: ServiceProvider): void {
  const { token } = provider as { token?: InjectionToken<unknown> };
  if (token === undefined || token === null) throw new KernelError('KERNEL_HARNESS_INVALID', 'A service provider needs a `token`');
  if ('useValue' in provider && provider.useValue !== undefined) {
    container.register(token, { useValue: provider.useValue });
  } else if ('useClass' in provider && typeof provider.useClass === 'function') {
    container.register(token, { useClass: provider.useClass as new (...args: unknown[]) => unknown }, { lifecycle: Lifecycle.Singleton });
  } else if ('useFactory' in provider && typeof provider.useFactory === 'function') {
    const factory = provider.useFactory;
    let built: { value: unknown } | undefined;
    container.register(token, {
      useFactory: (scope) => {
        built ??= { value: factory((inner) => resolveService(scope, inner)) };
        return built.value;
      },
    });
  } else {
    throw new KernelError('KERNEL_HARNESS_INVALID', `The provider for "${tokenName(token)}" needs a useValue, useClass or useFactory`);
  }
}

// tsyringe names the token it could not find in its error message; the kernel turns that into a
// boot error a developer can act on.
const UNREGISTERED = /unregistered dependency token: "([^"]*)"/;

/**
 * Resolves `token`, turning tsyringe's "unregistered token" failure (also deep inside a class's
 * constructor parameters) into a {@link KernelError} that names the missing token.
 * @param container - where to resolve from
 * @param token - what to resolve
 * @param plugin - the plugin asking, for the error
 * @throws {KernelError} KERNEL_SERVICE_MISSING naming the token nothing provides
 */
export function resolveService<T>(container: DependencyContainer, token: InjectionToken<T>, plugin?: string): T {
  try {
    return container.resolve(token);
  } catch (error) {
    if (KernelError.isInstance(error)) throw error;
    const missing = UNREGISTERED.exec(error instanceof Error ? error.message : '')?.[1]?.replace(/^Symbol\((.*)\)$/, '$1');
    if (missing === undefined) throw error;
    const who = plugin ? `Plugin "${plugin}"` : 'The harness';
    throw new KernelError(
      'KERNEL_SERVICE_MISSING',
      `${who} needs "${missing}" (while building "${tokenName(token)}"), but nothing provides it: pass it to createHarness({ provide: [{ token, useValue }] })`,
      { cause: error, ...(plugin ? { plugin } : {}), details: { token: missing } },
    );
  }
}
