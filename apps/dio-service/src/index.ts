// Public API of @troupe/dio-service (private app): for tests and embedding in other apps.
export { createDioServer, DEFAULT_MAX_BODY_BYTES } from './http-server.js';
export type { DioServerOptions } from './http-server.js';
export { DioService } from './dio-service.js';
export type { Acceptance, ChangeOutcome, ConversationQuery, DioServiceOptions, TaskView } from './dio-service.js';
export { DioStore, CorruptRecordError } from './dio-store.js';
export { compilePrompt, mergePrompt, validateCompiled, MAX_COMPILED_PROMPT } from './compiler.js';
export type { CompileInput, CompileResult } from './compiler.js';
export { ConfigError, readConfig } from './config.js';
export type { ServiceConfig } from './config.js';
export { ServiceError } from './service-error.js';
export type { ServiceErrorCode } from './service-error.js';
export { startDioService } from './start.js';
export type { RunningDioService, StartOverrides } from './start.js';
export type { BasePrompt, ConversationState, Requirement, TaskRecord, Version } from './records.js';
