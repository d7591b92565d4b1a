import { useCallback, useEffect, useState } from 'react';
import { ApiFailure, api } from '../api.js';
import type { StoryWorkspace } from '../types.js';

/** The open workspace, the player's unsaved edits and the outcome of the last save. */
export interface WorkspaceEditor {
  readonly ws: StoryWorkspace | null;
  /** Text shown for a file: the unsaved edit, else the saved content. */
  text(path: string): string;
  isDirty(path: string): boolean;
  edit(path: string, text: string): void;
  /** Saves the unsaved edits of these files based on the revision the player is looking at. */
  save(paths: readonly string[]): Promise<boolean>;
  /** Runs a manifest change (`rev` = the revision the player edited); a stale one becomes a conflict. */
  change(run: (revision: number) => Promise<StoryWorkspace>): Promise<boolean>;
  /** Set after a save was refused because someone else changed the workspace. */
  readonly conflict: string | null;
  readonly error: string | null;
  readonly notice: string | null;
  /** Loads the latest version and keeps the unsaved edits, so the player can look and save again. */
  reloadKeepingEdits(): Promise<void>;
  /** Loads the latest version and drops the unsaved edits. */
  reloadDiscardingEdits(): Promise<void>;
  readonly busy: boolean;
}

/** State and actions of the story editor for one workspace. */
export function useWorkspace(storyId: string | null, refreshKey: number, onSaved: () => void): WorkspaceEditor {
  const [ws, setWs] = useState<StoryWorkspace | null>(null);
  const [drafts, setDrafts] = useState<Readonly<Record<string, string>>>({});
  const [conflict, setConflict] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    if (!storyId) return setWs(null);
    try {
      setWs(await api<StoryWorkspace>('GET', `/api/stories/${storyId}`));
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
  }, [storyId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: opening another workspace drops the edits of the previous one
  useEffect(() => {
    setDrafts({});
    setConflict(null);
    setNotice(null);
  }, [storyId]);
  // Reload after turns (continuity appends to history and proposals) unless the player is mid-edit.
  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is the trigger
  useEffect(() => {
    void load();
  }, [load, refreshKey]);

  const attempt = async (run: () => Promise<StoryWorkspace>, done: string): Promise<boolean> => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      setWs(await run());
      setConflict(null);
      setNotice(done);
      onSaved();
      return true;
    } catch (e) {
      if (e instanceof ApiFailure && e.code === 'STORY_REVISION_CONFLICT') setConflict(e.message);
      else setError((e as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  };

  return {
    ws,
    text: (path) => drafts[path] ?? ws?.files[path] ?? '',
    isDirty: (path) => drafts[path] !== undefined && drafts[path] !== (ws?.files[path] ?? ''),
    edit: (path, text) => setDrafts((d) => ({ ...d, [path]: text })),
    save: async (paths) => {
      if (!ws) return false;
      const files = Object.fromEntries(paths.filter((p) => drafts[p] !== undefined).map((p) => [p, drafts[p] as string]));
      if (Object.keys(files).length === 0) return true;
      const ok = await attempt(() => api('PUT', `/api/stories/${ws.id}/files`, { baseRevision: ws.revision, files }), '已保存 Saved');
      if (ok) setDrafts((d) => Object.fromEntries(Object.entries(d).filter(([p]) => !(p in files))));
      return ok;
    },
    change: (run) => (ws ? attempt(() => run(ws.revision), '已保存 Saved') : Promise.resolve(false)),
    conflict,
    error,
    notice,
    busy,
    reloadKeepingEdits: async () => {
      await load();
      setConflict(null);
      setNotice('已载入最新版本；你未保存的修改仍在编辑框里（标记为“未保存”），核对后再次保存即可重新应用。Latest version loaded; your unsaved edits are kept — review them and save again.');
    },
    reloadDiscardingEdits: async () => {
      setDrafts({});
      await load();
      setConflict(null);
      setNotice('已载入最新版本，你的修改已放弃。Latest version loaded; your edits were discarded.');
    },
  };
}
