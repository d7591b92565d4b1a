// The demo's composition root and showcase, for tests and for people reading how to wire Troupe.
export { composeDemo, resolveDataDir } from './compose.js';
export type { Demo, DemoDio, DemoEnv, DemoOptions } from './compose.js';
export { DemoConfigError } from './compose.js';
export { demoPreset } from './demo-preset.js';
export { runShowcase } from './showcase/run-showcase.js';
export type { ShowcaseReport } from './showcase/run-showcase.js';
export { runCli, buildProgram } from './cli/program.js';
export type { CliContext } from './cli/context.js';
export type { CliOutput } from './cli/output.js';
export { ensureExampleStory } from './example/create-example-story.js';
export { HARBOR_STORY_ID } from './example/harbor-story.js';
export { startWebServer } from './server/index.js';
export type { RunningWebServer, WebServerOptions } from './server/index.js';
