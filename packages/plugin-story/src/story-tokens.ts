import type { TreeStore } from '@troupe/kernel';
import type { InjectionToken } from '@troupe/kernel/di';
import type { StorySettings } from './plugin-config.js';
import type { SourceIndexCache } from './retrieval/source-index-cache.js';
import type { WebSearchProvider } from './web/web-search.js';

/**
 * DI tokens of the story plugin. An app overrides any of them when it creates the harness:
 * `createHarness({ provide: [{ token: StoryTokens.WebSearchProvider, useValue: mySearch }] })`.
 */
export const StoryTokens = Object.freeze({
  /** Where story workspaces live (default: the plugin's `trees` option, else the harness's `Tokens.TreeStore`). */
  WorkspaceStore: Symbol.for('@troupe/plugin-story/WorkspaceStore') as InjectionToken<TreeStore>,
  /** The research stage's web search (default: the plugin's `webSearch` option, else none). */
  WebSearchProvider: Symbol.for('@troupe/plugin-story/WebSearchProvider') as InjectionToken<WebSearchProvider>,
  /** Search indexes per workspace (default: an in-memory {@link SourceIndexCache}). */
  SourceIndexCache: Symbol.for('@troupe/plugin-story/SourceIndexCache') as InjectionToken<SourceIndexCache>,
  /** The validated plugin settings (retrieval caps, recent messages). */
  Settings: Symbol.for('@troupe/plugin-story/Settings') as InjectionToken<StorySettings>,
});

/** Registered for {@link StoryTokens.WebSearchProvider} when nothing provides one: web search is off. */
export const NO_WEB_SEARCH: WebSearchProvider = Object.freeze({
  id: 'none',
  search: () => Promise.reject(new Error('no web search provider')),
});
