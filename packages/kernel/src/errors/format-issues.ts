/** One validation issue as zod 4 and every Standard Schema library report it. */
export interface IssueLike {
  /** What is wrong. */
  readonly message: string;
  /** Where: property keys (zod) or `{key}` segments (Standard Schema). */
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** Options of {@link formatIssues}. */
export interface FormatIssuesOptions {
  /** Label for an issue about the whole value (default `(root)`). */
  readonly root?: string;
  /** At most this many issues are listed; the rest are counted (default 10). */
  readonly limit?: number;
}

/**
 * Formats a field path the way people read it: `sections[1].kind`.
 * @param path - property keys or `{key}` segments
 * @param root - label for an empty path
 * @returns the readable path
 */
export function formatIssuePath(path: IssueLike['path'], root = '(root)'): string {
  let out = '';
  for (const segment of path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  }
  return out || root;
}

/**
 * The one way Troupe turns validation issues into an error message: `path: message; path: message`.
 * Accepts a zod error, its `issues`, or Standard Schema issues.
 * @param issues - the issues, or an object with an `issues` array (a `ZodError`)
 * @param options - root label and limit
 * @returns one line naming every bad field
 * @example
 * ```ts
 * const parsed = schema.safeParse(input);
 * if (!parsed.success) throw new KernelError('KERNEL_TURN_INPUT_INVALID', `Invalid turn input: ${formatIssues(parsed.error)}`);
 * ```
 */
export function formatIssues(issues: readonly IssueLike[] | { readonly issues: readonly IssueLike[] }, options: FormatIssuesOptions = {}): string {
  const list = 'issues' in issues ? issues.issues : issues;
  const limit = options.limit ?? 10;
  const shown = list.slice(0, limit).map((issue) => `${formatIssuePath(issue.path, options.root)}: ${issue.message}`);
  if (list.length > limit) shown.push(`(${list.length - limit} more)`);
  return shown.join('; ');
}
