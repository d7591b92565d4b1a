// One error shape for every Troupe package. Each package defines its own class with
// `defineErrorClass`, so `code`, `plugin`, `hook`, `details`, `cause` and `isInstance` mean the same
// thing everywhere, and an app can handle any Troupe failure with `TroupeError.isInstance(error)`.

// A `Symbol.for` key (not `instanceof`) so errors stay recognisable across duplicated package copies.
const ERROR_KINDS = Symbol.for('@troupe/kernel/error-kinds');
// Marks the classes `defineErrorClass` returns: the class a package writes on top of one
// (`class DioError extends defineErrorClass('DioError') {}`) is that kind, not a new one.
const FACTORY_CLASS = Symbol.for('@troupe/kernel/error-factory-class');

/** Options every Troupe error accepts. */
export interface TroupeErrorOptions {
  /** The underlying error, kept for diagnostics. */
  readonly cause?: unknown;
  /** Name of the plugin involved, when there is one. */
  readonly plugin?: string;
  /** Name of the hook involved, when there is one. */
  readonly hook?: string;
  /** Extra machine-readable details (issues, ids, sizes). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** A class built by {@link defineErrorClass}: its constructor, `errorKind` and `isInstance`. */
export interface TroupeErrorClass<Code extends string, Extra extends object = Record<never, never>> {
  /**
   * @param code - the stable error code
   * @param message - a sentence a developer (or player) can act on
   * @param options - cause, plugin, hook, details and the class's extra fields
   */
  new (code: Code, message: string, options?: TroupeErrorOptions & { readonly [K in keyof Extra]?: Extra[K] }): TroupeError<Code> & {
    readonly [K in keyof Extra]: Extra[K] | undefined;
  };
  /** The class's kind (its `name`), recorded on every instance. */
  readonly errorKind: string;
  /**
   * @param value - anything thrown
   * @returns true when `value` is an instance of this class from any copy of its package
   */
  isInstance<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T;
}

const BASE_OPTION_KEYS: ReadonlySet<string> = new Set(['cause', 'plugin', 'hook', 'details']);

/**
 * The base of every Troupe error. Don't construct it directly; define your package's class with
 * {@link defineErrorClass}. Use `TroupeError.isInstance(error)` to recognise any of them.
 */
export class TroupeError<Code extends string = string> extends Error {
  /** The kind recorded on instances of this class (subclasses built by the factory set their own). */
  static readonly errorKind: string = 'TroupeError';
  /** Stable, documented error code: match on it, never on the message. */
  readonly code: Code;
  /** Plugin that raised or caused the error, if any. */
  readonly plugin: string | undefined;
  /** Hook in which the error happened, if any. */
  readonly hook: string | undefined;
  /** Extra machine-readable details. */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  /**
   * @param code - the stable error code
   * @param message - a sentence a developer can act on
   * @param options - cause, plugin, hook, details (and, for defined classes, their extra fields)
   */
  constructor(code: Code, message: string, options: TroupeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const kinds = kindsOfClass(new.target);
    Object.defineProperty(this, ERROR_KINDS, { value: kinds, enumerable: false });
    this.name = kinds[0] ?? 'TroupeError';
    this.code = code;
    this.plugin = options.plugin;
    this.hook = options.hook;
    this.details = options.details;
    // Extra fields declared by the class (e.g. `status`, `field`) are copied from the options.
    for (const [key, value] of Object.entries(options)) {
      if (!BASE_OPTION_KEYS.has(key)) (this as Record<string, unknown>)[key] = value;
    }
  }

  /**
   * @param value - anything thrown
   * @returns true when `value` is an instance of this class (for `TroupeError` itself: of any
   *   Troupe error class) from any copy of its package
   */
  static isInstance<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    // `this` is the class `isInstance` was called on (a subclass), not always TroupeError.
    // biome-ignore lint/complexity/noThisInStatic: the subclass's own kind is the point
    const kind = kindOfClass(this);
    if (typeof value !== 'object' || value === null) return false;
    const kinds = (value as Record<symbol, unknown>)[ERROR_KINDS];
    return Array.isArray(kinds) && kinds.includes(kind);
  }
}

/**
 * The kind of one class: its own `errorKind` when it declares one; the kind of the factory class it
 * directly extends (the usual `class X extends defineErrorClass('X') {}`); otherwise — a subclass
 * of a package's error class that declares no `errorKind` — its own name, so the subclass never
 * shares its parent's kind and `Sub.isInstance(parentInstance)` is false.
 */
function kindOfClass(target: unknown): string {
  const owner = target as { errorKind: string; name: string };
  if (Object.hasOwn(owner, 'errorKind')) return owner.errorKind;
  const parent = Object.getPrototypeOf(owner) as { errorKind: string };
  // Own property only: static members are inherited, and a grandchild is not the factory's face.
  if (parent && Object.hasOwn(parent, FACTORY_CLASS)) return parent.errorKind;
  return owner.name || owner.errorKind;
}

/** The kinds of a class and its ancestors, most specific first, without repeats. */
function kindsOfClass(target: unknown): string[] {
  const kinds: string[] = [];
  for (let current = target; typeof current === 'function' && current !== Error; current = Object.getPrototypeOf(current)) {
    const kind = kindOfClass(current);
    if (!kinds.includes(kind)) kinds.push(kind);
  }
  return kinds;
}

/**
 * Defines a package's error class: every instance has a stable `code`, optional `plugin`, `hook`,
 * `details` and `cause`, plus the typed `Extra` fields the package declares.
 * @param name - the class's name, unique across Troupe (e.g. `DioError`); also its `errorKind`
 * @returns a class to extend (or use directly)
 * @example
 * ```ts
 * export type DioErrorCode = 'DIO_TIMEOUT' | 'DIO_NETWORK';
 * export class DioError extends defineErrorClass<DioErrorCode, { status: number }>('DioError') {}
 * throw new DioError('DIO_TIMEOUT', 'The DIO service did not answer in 10 s', { status: 504 });
 * DioError.isInstance(error); // across package copies
 * ```
 */
export function defineErrorClass<Code extends string, Extra extends object = Record<never, never>>(name: string): TroupeErrorClass<Code, Extra> {
  const defined = class extends TroupeError<Code> {
    static override readonly errorKind: string = name;
  };
  Object.defineProperty(defined, 'name', { value: name });
  Object.defineProperty(defined, FACTORY_CLASS, { value: true });
  return defined as unknown as TroupeErrorClass<Code, Extra>;
}
