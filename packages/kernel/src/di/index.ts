// reflect-metadata must load before tsyringe: tsyringe throws at import time without it, and
// ESM evaluates sibling imports in source order. Every kernel module reaches tsyringe through
// this file, and plugins import DI primitives only from `@troupe/kernel/di`.
import 'reflect-metadata';

export type { DependencyContainer, FactoryProvider, InjectionToken, ValueProvider, ClassProvider } from 'tsyringe';
export { inject, injectable, instanceCachingFactory, Lifecycle } from 'tsyringe';

import { container, type DependencyContainer } from 'tsyringe';

/**
 * A fresh container that inherits nothing and shares nothing with other harnesses. The kernel
 * never registers into tsyringe's global container, so tests and several harnesses stay isolated.
 */
export function createIsolatedContainer(): DependencyContainer {
  return container.createChildContainer();
}
export { Tokens } from './tokens.js';
export { registerProvider, resolveService, tokenName } from './service-providers.js';
export type { ServiceProvider, ServiceResolver } from './service-providers.js';
