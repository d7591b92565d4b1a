import type { InjectionToken } from 'tsyringe';
import type { BackgroundTasks } from '../background/background-tasks.js';
import type { ModelRegistry } from '../ports/chat-model.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { SessionLog } from '../ports/session-log.js';
import type { TreeStore } from '../ports/tree-store.js';

/**
 * DI tokens for the single-provider capabilities the kernel registers in every harness's root
 * container. Resolve them from a plugin's scope: `ctx.container.resolve(Tokens.Clock)`.
 */
export const Tokens = Object.freeze({
  Clock: Symbol.for('@troupe/kernel/Clock') as InjectionToken<Clock>,
  Logger: Symbol.for('@troupe/kernel/Logger') as InjectionToken<Logger>,
  SessionLog: Symbol.for('@troupe/kernel/SessionLog') as InjectionToken<SessionLog>,
  TreeStore: Symbol.for('@troupe/kernel/TreeStore') as InjectionToken<TreeStore>,
  ModelRegistry: Symbol.for('@troupe/kernel/ModelRegistry') as InjectionToken<ModelRegistry>,
  BackgroundTasks: Symbol.for('@troupe/kernel/BackgroundTasks') as InjectionToken<BackgroundTasks>,
  /** The HTTP client plugins use (default: the global `fetch`); override it to route or record requests. */
  Fetch: Symbol.for('@troupe/kernel/Fetch') as InjectionToken<typeof fetch>,
});
