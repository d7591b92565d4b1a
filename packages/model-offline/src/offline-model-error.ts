import { defineErrorClass } from '@troupe/kernel';

/** Stable error codes of `@troupe/model-offline`. */
export type OfflineModelErrorCode = 'OFFLINE_OPTIONS_INVALID';

/** Raised for invalid offline model configuration; match on `code`. */
export class OfflineModelError extends defineErrorClass<OfflineModelErrorCode>('OfflineModelError') {}
