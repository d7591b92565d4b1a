/** Stable error codes of `@troupe/model-offline`. */
export type OfflineModelErrorCode = 'OFFLINE_OPTIONS_INVALID';

/** Raised for invalid offline model configuration; match on `code`. */
export class OfflineModelError extends Error {
  /** Stable error code. */
  readonly code: OfflineModelErrorCode;

  /**
   * @param code - the stable error code
   * @param message - what was wrong and how to fix it
   */
  constructor(code: OfflineModelErrorCode, message: string) {
    super(message);
    this.name = 'OfflineModelError';
    this.code = code;
  }
}
