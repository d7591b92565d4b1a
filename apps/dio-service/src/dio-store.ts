import { createHash } from 'node:crypto';
import { defineErrorClass, KernelStorageError, type TreeStore } from '@troupe/kernel';
import type * as z from 'zod';
import { type BasePrompt, BasePromptSchema, type ConversationState, ConversationStateSchema, type TaskRecord, TaskRecordSchema } from './records.js';

/** Thrown when a stored record does not parse: the data was damaged outside the service. */
export class CorruptRecordError extends defineErrorClass<'DIO_STORE_CORRUPT'>('CorruptRecordError') {
  /**
   * @param treeId - the damaged tree
   * @param cause - the parse failure
   */
  constructor(treeId: string, cause: unknown) {
    super('DIO_STORE_CORRUPT', `Stored record ${treeId} is damaged and was not used`, { cause, details: { treeId } });
  }
}

/**
 * The service's durable state on a {@link TreeStore}: one tree per base prompt, per
 * (user, RP conversation, target prompt) and per (user, request id) task — two users may send the
 * same request id (the same RP turn id) without ever seeing or blocking each other's task. Tree ids are hashes of the real ids, so
 * any valid wire id maps to a valid tree id and nothing user-chosen reaches a path. Every
 * read-modify-write runs under a per-tree lock and commits on the revision it read.
 */
export class DioStore {
  readonly #trees: TreeStore;
  readonly #locks = new Map<string, Promise<unknown>>();

  /** @param trees - durable storage (`MemoryTreeStore` in tests, `@troupe/storage-fs` in production) */
  constructor(trees: TreeStore) {
    this.#trees = trees;
  }

  /** Reads a base prompt. */
  readPrompt(targetPromptId: string): Promise<BasePrompt | undefined> {
    return this.#read(treeId('prompt', targetPromptId), 'prompt.json', BasePromptSchema);
  }

  /** Creates or replaces a base prompt. */
  writePrompt(prompt: BasePrompt): Promise<void> {
    return this.#write(treeId('prompt', prompt.targetPromptId), 'prompt.json', () => prompt).then(() => {});
  }

  /** Reads a conversation's requirements and versions. */
  readConversation(userId: string, rpConversationId: string, targetPromptId: string): Promise<ConversationState | undefined> {
    return this.#read(conversationTree(userId, rpConversationId, targetPromptId), 'state.json', ConversationStateSchema);
  }

  /**
   * Updates a conversation under its lock.
   * @param update - receives the current state (undefined when new) and returns the next one
   */
  updateConversation(
    key: { userId: string; rpConversationId: string; targetPromptId: string },
    update: (current: ConversationState | undefined) => Promise<ConversationState>,
  ): Promise<ConversationState> {
    const id = conversationTree(key.userId, key.rpConversationId, key.targetPromptId);
    return this.#write(id, 'state.json', async () => update(await this.#read(id, 'state.json', ConversationStateSchema)));
  }

  /**
   * Reads one user's task by its request id. A task stored by an older version (keyed by the
   * request id alone) is found too, but only by the user it belongs to.
   */
  async readTask(userId: string, requestId: string): Promise<TaskRecord | undefined> {
    const task = await this.#read(taskTree(userId, requestId), 'task.json', TaskRecordSchema);
    if (task) return task;
    const legacy = await this.#read(treeId('task', requestId), 'task.json', TaskRecordSchema);
    return legacy?.userId === userId ? legacy : undefined;
  }

  /** Creates or replaces a task record (under its (user, request id) key; an older copy keyed by the request id alone is removed). */
  async writeTask(task: TaskRecord): Promise<TaskRecord> {
    const written = await this.#write(taskTree(task.userId, task.requestId), 'task.json', () => task);
    const legacyId = treeId('task', task.requestId);
    const legacy = await this.#read(legacyId, 'task.json', TaskRecordSchema).catch(() => undefined);
    if (legacy?.userId === task.userId) await this.#locked(legacyId, () => this.#trees.delete(legacyId));
    return written;
  }

  /** Every task still `processing` (to resume after a restart). */
  async processingTasks(): Promise<TaskRecord[]> {
    const tasks: TaskRecord[] = [];
    for (const id of await this.#trees.list()) {
      if (!id.startsWith('task-')) continue;
      const task = await this.#read(id, 'task.json', TaskRecordSchema).catch(() => undefined);
      if (task?.status === 'processing') tasks.push(task);
    }
    return tasks;
  }

  async #read<S extends z.ZodType>(id: string, file: string, schema: S): Promise<z.output<S> | undefined> {
    let content: string | undefined;
    try {
      content = (await this.#trees.read(id)).files[file];
    } catch (error) {
      if (KernelStorageError.isInstance(error) && error.code === 'TREE_NOT_FOUND') return undefined;
      throw error;
    }
    if (content === undefined) return undefined;
    try {
      return schema.parse(JSON.parse(content));
    } catch (cause) {
      throw new CorruptRecordError(id, cause);
    }
  }

  async #write<T>(id: string, file: string, next: () => T | Promise<T>): Promise<T> {
    return this.#locked(id, async () => {
      const value = await next();
      const content = `${JSON.stringify(value, null, 2)}\n`;
      let revision: number | undefined;
      try {
        revision = (await this.#trees.read(id)).revision;
      } catch (error) {
        if (!(KernelStorageError.isInstance(error) && error.code === 'TREE_NOT_FOUND')) throw error;
      }
      if (revision === undefined) await this.#trees.create(id, { [file]: content });
      else await this.#trees.commit(id, { baseRevision: revision, writes: { [file]: content } });
      return value;
    });
  }

  // In-process serialisation per tree; the revision check catches anything else.
  async #locked<T>(id: string, run: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(id) ?? Promise.resolve();
    const current = previous.catch(() => {}).then(run);
    const settled = current.catch(() => {});
    this.#locks.set(id, settled);
    try {
      return await current;
    } finally {
      if (this.#locks.get(id) === settled) this.#locks.delete(id);
    }
  }
}

function treeId(kind: 'prompt' | 'task' | 'conv', ...parts: string[]): string {
  return `${kind}-${createHash('sha256').update(parts.join('\u0000'), 'utf8').digest('hex').slice(0, 40)}`;
}

function taskTree(userId: string, requestId: string): string {
  return treeId('task', userId, requestId);
}

function conversationTree(userId: string, rpConversationId: string, targetPromptId: string): string {
  return treeId('conv', userId, rpConversationId, targetPromptId);
}
