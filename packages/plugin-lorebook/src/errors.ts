import { defineErrorClass, formatIssues, type TroupeErrorOptions } from '@troupe/kernel';

/**
 * Stable codes of {@link LorebookError}. Codes never change meaning once released; match on `code`.
 * - `LOREBOOK_JSON_INVALID` — the file is not JSON.
 * - `LOREBOOK_TOO_LARGE` — the file or book exceeds the size limits.
 * - `LOREBOOK_INVALID` — the JSON is not a world-info file / character book (details in `issues`).
 * - `LOREBOOK_INPUT_INVALID` — {@link activateWorldInfo} got malformed books, messages or settings.
 * - `LOREBOOK_DUPLICATE_BOOK` — two books of one activation share a name (entry ids would clash).
 */
export type LorebookErrorCode = 'LOREBOOK_JSON_INVALID' | 'LOREBOOK_TOO_LARGE' | 'LOREBOOK_INVALID' | 'LOREBOOK_INPUT_INVALID' | 'LOREBOOK_DUPLICATE_BOOK';

/** One validation problem, with the path into the input. */
export interface LorebookIssue {
  readonly path: string;
  readonly message: string;
}

/** Options of {@link LorebookError}: cause, details and the validation problems. */
export type LorebookErrorOptions = TroupeErrorOptions & { readonly issues?: readonly LorebookIssue[] };

/**
 * The one error type of this package, built with the kernel's error factory; `issues` lists the
 * validation problems (empty when the input was not malformed).
 */
export class LorebookError extends defineErrorClass<LorebookErrorCode, { issues: readonly LorebookIssue[] }>('LorebookError') {
  /** Validation problems, when the input was malformed. */
  declare readonly issues: readonly LorebookIssue[];

  /**
   * @param code - stable code
   * @param message - what went wrong, for a developer
   * @param options - cause, details and validation problems with paths
   */
  constructor(code: LorebookErrorCode, message: string, options: LorebookErrorOptions = {}) {
    super(code, message, { ...options, issues: options.issues ?? [] });
  }
}

/**
 * Turns zod issues into {@link LorebookIssue}s and a one-line summary.
 * @param issues - zod issues (`path`, `message`)
 * @returns the issues and a summary of the first few
 */
export function describeZodIssues(issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[]): { issues: LorebookIssue[]; summary: string } {
  const mapped = issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  return { issues: mapped, summary: formatIssues(issues, { limit: 3 }) };
}
