import { KernelError, KernelStorageError } from '@troupe/kernel';
import { StoryError } from '@troupe/plugin-story';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ApiError, toApiError } from '../src/server/api-error.js';

describe('toApiError', () => {
  it('maps story errors to their statuses with the stable code and message', () => {
    const conflict = toApiError(new StoryError('STORY_REVISION_CONFLICT', 'Someone else changed it'));
    expect(conflict).toEqual({ status: 409, body: { code: 'STORY_REVISION_CONFLICT', message: 'Someone else changed it' }, unexpected: false });
    expect(toApiError(new StoryError('STORY_WORKSPACE_NOT_FOUND', 'missing')).status).toBe(404);
    expect(toApiError(new StoryError('STORY_MANIFEST_INVALID', 'bad')).status).toBe(400);
    expect(toApiError(new StoryError('STORY_DUPLICATE_ID', 'taken')).status).toBe(409);
  });

  it('maps storage, kernel input, zod and API errors', () => {
    expect(toApiError(new KernelStorageError('SESSION_INVALID_ID', 'bad id')).status).toBe(400);
    expect(toApiError(new KernelError('KERNEL_TURN_INPUT_INVALID', 'bad input')).status).toBe(400);
    const zod = z.object({ a: z.string() }).safeParse({ a: 1 });
    expect(toApiError(zod.error)).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    expect(toApiError(new ApiError(413, 'BODY_TOO_LARGE', 'too big')).body).toEqual({ code: 'BODY_TOO_LARGE', message: 'too big' });
  });

  it('answers anything else with 500 INTERNAL without leaking its message', () => {
    const mapped = toApiError(new Error('ENOENT /secret/path'));
    expect(mapped).toEqual({ status: 500, body: { code: 'INTERNAL', message: expect.any(String) }, unexpected: true });
    expect(mapped.body.message).not.toContain('/secret/path');
    expect(toApiError(new StoryError('STORY_STAGE_MODEL_FAILED', 'model down')).status).toBe(500);
    expect(toApiError(new KernelError('KERNEL_MODEL_FAILED', 'model down')).status).toBe(500);
  });
});
