import { useCallback, useEffect, useState } from 'react';
import { ApiFailure, api } from '../api.js';
import type { StoryWorkspace } from '../../../src/wire/story.js';

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

/**
 * An unsaved edit and the revision it was started from. A reload (after a turn, or when another
 * tab saved) shows the latest workspace but never moves a draft's base: saving a draft after
 * anything changed is refused by the server and shows the conflict banner, so neither side is
 * lost without the player choosing.
 */
interface Draft {
  readonly text: string;
  readonly base: number;
}

/** State and actions of the story editor for one workspace. */
export function useWorkspace(storyId: string | null, refreshKey: number, onSaved: () => void): WorkspaceEditor {
  const [ws, setWs] = useState<StoryWorkspace | null>(null);
  const [drafts, setDrafts] = useState<Readonly<Record<string, Draft>>>({});
  const [conflict, setConflict] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async (): Promise<StoryWorkspace | null> => {
    if (!storyId) {
      setWs(null);
      return null;
    }
    try {
      const latest = await api<StoryWorkspace>('GET', `/api/stories/${storyId}`);
      setWs(latest);
      setError(null);
      return latest;
    } catch (e) {
      setError((e as Error).message);
      return null;
    }
  }, [storyId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: opening another workspace drops the edits of the previous one
  useEffect(() => {
    setDrafts({});
    setConflict(null);
    setNotice(null);
  }, [storyId]);
  // Reload after turns (continuity appends to history and proposals); unsaved drafts keep their base.
  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is the trigger
  useEffect(() => {
    void load();
  }, [load, refreshKey]);

  // After our own save from `base`, drafts started at `base` saw everything but our own change: they
  // move to the new revision. Drafts from an older revision keep it (their save must conflict).
  const rebase = (base: number, next: number) =>
    setDrafts((current) => Object.fromEntries(Object.entries(current).map(([path, draft]) => [path, draft.base === base ? { ...draft, base: next } : draft])));

  const attempt = async (base: number, run: () => Promise<StoryWorkspace>, done: string): Promise<boolean> => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const saved = await run();
      setWs(saved);
      rebase(base, saved.revision);
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
    text: (path) => drafts[path]?.text ?? ws?.files[path] ?? '',
    isDirty: (path) => drafts[path] !== undefined && drafts[path].text !== (ws?.files[path] ?? ''),
    edit: (path, text) =>
      setDrafts((d) => {
        const base = d[path]?.base ?? ws?.revision;
        return base === undefined ? d : { ...d, [path]: { text, base } };
      }),
    save: async (paths) => {
      if (!ws) return false;
      const chosen = paths.map((p) => [p, drafts[p]] as const).filter((entry): entry is readonly [string, Draft] => entry[1] !== undefined);
      if (chosen.length === 0) return true;
      const files = Object.fromEntries(chosen.map(([p, draft]) => [p, draft.text]));
      // The oldest revision any of these drafts started from: a change since then is a conflict.
      const base = Math.min(...chosen.map(([, draft]) => draft.base));
      const ok = await attempt(base, () => api('PUT', `/api/stories/${ws.id}/files`, { baseRevision: base, files }), '已保存 Saved');
      if (ok) setDrafts((d) => Object.fromEntries(Object.entries(d).filter(([p]) => !(p in files))));
      return ok;
    },
    change: (run) => (ws ? attempt(ws.revision, () => run(ws.revision), '已保存 Saved') : Promise.resolve(false)),
    conflict,
    error,
    notice,
    busy,
    reloadKeepingEdits: async () => {
      const latest = await load();
      // The player chose to keep their edits over what changed: they now apply to the latest revision.
      if (latest) setDrafts((d) => Object.fromEntries(Object.entries(d).map(([path, draft]) => [path, { ...draft, base: latest.revision }])));
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
