import { defineErrorClass, formatIssues, KernelError, KernelStorageError, RevisionConflictError, TroupeError } from '@troupe/kernel';
import { formatIssuePath } from '@troupe/kernel/util';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';

type DemoCode = 'DEMO_BROKEN' | 'DEMO_GONE';
class DemoError extends defineErrorClass<DemoCode, { status: number }>('DemoError') {}

describe('the one error factory', () => {
  it('gives every class the same shape: code, message, plugin, hook, details, cause and extra fields', () => {
    const cause = new Error('socket closed');
    const error = new DemoError('DEMO_BROKEN', 'the demo broke', { cause, plugin: 'demo', hook: 'preActor', details: { id: 7 }, status: 503 });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'DemoError', code: 'DEMO_BROKEN', message: 'the demo broke', plugin: 'demo', hook: 'preActor', details: { id: 7 }, status: 503 });
    expect(error.cause).toBe(cause);
    expect(new DemoError('DEMO_GONE', 'gone').status).toBeUndefined();
  });

  it('recognises instances by kind, across copies, without confusing classes', () => {
    const demo = new DemoError('DEMO_GONE', 'gone');
    const kernel = new KernelError('KERNEL_HOOK_FAILED', 'failed');
    expect(DemoError.isInstance(demo)).toBe(true);
    expect(DemoError.isInstance(kernel)).toBe(false);
    expect(KernelError.isInstance(demo)).toBe(false);
    expect(TroupeError.isInstance(demo) && TroupeError.isInstance(kernel)).toBe(true);
    expect(TroupeError.isInstance(new Error('plain'))).toBe(false);
    // A copy of the package defines its own class object; the kind marker still matches.
    class CopyOfDemoError extends defineErrorClass<DemoCode>('DemoError') {}
    expect(DemoError.isInstance(new CopyOfDemoError('DEMO_GONE', 'gone'))).toBe(true);
  });

  it('keeps subclass chains: a revision conflict is a storage error', () => {
    const conflict = new RevisionConflictError('lia', 1, 2);
    expect(RevisionConflictError.isInstance(conflict)).toBe(true);
    expect(KernelStorageError.isInstance(conflict)).toBe(true);
    expect(RevisionConflictError.isInstance(new KernelStorageError('TREE_NOT_FOUND', 'no tree'))).toBe(false);
    expect(conflict).toMatchObject({ name: 'RevisionConflictError', code: 'TREE_REVISION_CONFLICT', baseRevision: 1, currentRevision: 2 });
  });

  it('is true only for its own class: a subclass never inherits its parent\'s isInstance', () => {
    const storageErrors = [new KernelStorageError('TREE_NOT_FOUND', 'no tree'), new KernelStorageError('TREE_REVISION_CONFLICT', 'a hand-made one')];
    for (const error of storageErrors) expect(RevisionConflictError.isInstance(error)).toBe(false);
    // A subclass that declares no errorKind of its own is still its own kind.
    class DemoTimeoutError extends DemoError {}
    class DemoSlowTimeoutError extends DemoTimeoutError {}
    const demo = new DemoError('DEMO_GONE', 'gone');
    const timeout = new DemoTimeoutError('DEMO_BROKEN', 'timed out');
    const slow = new DemoSlowTimeoutError('DEMO_BROKEN', 'slow');
    expect([DemoTimeoutError.isInstance(demo), DemoSlowTimeoutError.isInstance(demo), DemoSlowTimeoutError.isInstance(timeout)]).toEqual([false, false, false]);
    expect([DemoError.isInstance(timeout), DemoError.isInstance(slow), DemoTimeoutError.isInstance(slow), TroupeError.isInstance(slow)]).toEqual([true, true, true, true]);
    expect(timeout.name).toBe('DemoTimeoutError');
    // Sibling factory classes and the kernel's own classes stay apart both ways.
    const kernel = new KernelError('KERNEL_HOOK_FAILED', 'failed');
    expect([DemoError.isInstance(kernel), DemoTimeoutError.isInstance(kernel), KernelStorageError.isInstance(kernel), RevisionConflictError.isInstance(kernel)]).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(KernelError.isInstance(new RevisionConflictError('lia', 1, 2))).toBe(false);
  });

  it('does not put its marker into JSON', () => {
    expect(JSON.stringify({ ...new DemoError('DEMO_GONE', 'gone') })).not.toContain('error-kinds');
  });
});

describe('the one issue formatter', () => {
  it('names every bad field as path: message, with array indexes in brackets', () => {
    const schema = z.object({ sections: z.array(z.object({ kind: z.enum(['prose']) })), limit: z.number().int().min(0) });
    const parsed = schema.safeParse({ sections: [{ kind: 'prose' }, { kind: 'poem' }], limit: -3 });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const text = formatIssues(parsed.error);
    expect(text).toMatch(/^sections\[1\]\.kind: .+; limit: .+$/);
    expect(formatIssues(parsed.error.issues)).toBe(text);
  });

  it('labels root issues, reads Standard Schema segments and caps long lists', () => {
    expect(formatIssues([{ message: 'Expected object' }], { root: 'config' })).toBe('config: Expected object');
    expect(formatIssuePath([{ key: 'a' }, { key: 0 }, 'b'])).toBe('a[0].b');
    const many = Array.from({ length: 12 }, (_, index) => ({ message: 'bad', path: [index] }));
    expect(formatIssues(many, { limit: 2 })).toBe('[0]: bad; [1]: bad; (10 more)');
  });
});
