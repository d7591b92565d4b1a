import { defineErrorClass } from '@troupe/kernel';

/** Stable codes of {@link ServiceError} (the `error.code` of every non-2xx JSON answer). */
export type ServiceErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'PROMPT_NOT_FOUND'
  | 'TASK_NOT_FOUND'
  | 'REQUIREMENT_NOT_FOUND'
  | 'INVALID_REQUEST'
  | 'INVALID_ID'
  | 'BODY_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'METHOD_NOT_ALLOWED'
  | 'REQUEST_ID_CONFLICT'
  | 'CONVERSATION_EXISTS'
  | 'INTERNAL';

/**
 * An error the HTTP layer turns into `{ok:false, error:{code, message}}` with `status`. Built
 * with the kernel's `defineErrorClass`, so `ServiceError.isInstance` works across copies.
 */
export class ServiceError extends defineErrorClass<ServiceErrorCode>('ServiceError') {
  /** HTTP status of the answer. */
  readonly status: number;

  /**
   * @param status - HTTP status
   * @param code - stable code
   * @param message - what went wrong (never contains another user's data)
   */
  constructor(status: number, code: ServiceErrorCode, message: string) {
    super(code, message);
    this.status = status;
  }
}
