/**
 * Stable codes of {@link LorebookError}. Codes never change meaning once released; match on `code`.
 * - `LOREBOOK_JSON_INVALID` — the file is not JSON.
 * - `LOREBOOK_TOO_LARGE` — the file or book exceeds the size limits.
 * - `LOREBOOK_INVALID` — the JSON is not a world-info file / character book (details in `issues`).
 * - `LOREBOOK_INPUT_INVALID` — {@link activateWorldInfo} got malformed books, messages or settings.
 * - `LOREBOOK_DUPLICATE_BOOK` — two books of one activation share a name (entry ids would clash).
 */
export type LorebookErrorCode = 'LOREBOOK_JSON_INVALID' | 'LOREBOOK_TOO_LARGE' | 'LOREBOOK_INVALID' | 'LOREBOOK_INPUT_INVALID' | 'LOREBOOK_DUPLICATE_BOOK';

const LOREBOOK_ERROR_MARKER = Symbol.for('@troupe/plugin-lorebook/LorebookError');

/** One validation problem, with the path into the input. */
export interface LorebookIssue {
  readonly path: string;
  readonly message: string;
}

/** The one error type of this package. */
export class LorebookError extends Error {
  /** Stable code. */
  readonly code: LorebookErrorCode;
  /** Validation problems, when the input was malformed. */
  readonly issues: readonly LorebookIssue[];
  readonly [LOREBOOK_ERROR_MARKER] = true;

  /**
   * @param code - stable code
   * @param message - what went wrong, for a developer
   * @param issues - validation problems with paths
   * @param cause - the underlying error
   */
  constructor(code: LorebookErrorCode, message: string, issues: readonly LorebookIssue[] = [], cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'LorebookError';
    this.code = code;
    this.issues = issues;
  }

  /**
   * True for a LorebookError from any copy of this package.
   * @param value - anything thrown
   */
  static isInstance(value: unknown): value is LorebookError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[LOREBOOK_ERROR_MARKER] === true;
  }
}

/**
 * Turns zod issues into {@link LorebookIssue}s and a one-line summary.
 * @param issues - zod issues (`path`, `message`)
 * @returns the issues and a summary of the first few
 */
export function describeZodIssues(issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[]): { issues: LorebookIssue[]; summary: string } {
  const mapped = issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  const summary = mapped
    .slice(0, 3)
    .map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`))
    .join('; ');
  return { issues: mapped, summary: mapped.length > 3 ? `${summary}; … (${mapped.length} issues)` : summary };
}
