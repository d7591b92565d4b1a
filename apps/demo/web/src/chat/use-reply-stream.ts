import { useEffect, useRef, useState } from 'react';
import type { TurnHandlers } from '../api.js';
import type { TurnResultView } from '../../../src/wire/turn-stream.js';
import { eventNote } from './event-note.js';
import { DIRECTOR_TOOLS_UNAVAILABLE, TOOLS_UNAVAILABLE_NOTICE, TURN_COMMITTED } from './stage-names.js';
import type { StageRow } from './StageList.js';
import { addStage } from './StageList.js';
import type { PendingReply } from './StreamingExchange.js';

/** What to do when a run ends; called only while the run is still the one on screen (but `onLeft`). */
export interface RunCallbacks {
  /**
   * The run was committed: update the chat (the streaming reply is cleared in the same render).
   * `result` is undefined when the stream ended without one after the commit (the session log
   * has the reply; the work after it finishes on the server or at its next turn); `afterCommit`
   * is then what ended it, unless that was the player leaving.
   */
  onCommitted(result: TurnResultView | undefined, afterCommit?: unknown): Promise<void>;
  /** Nothing was committed: `error` is undefined when the player pressed Stop. */
  onNotCommitted(error: unknown): void;
  /**
   * The player left the session while the run had committed nothing (leaving stopped it): the
   * only callback called off screen, so what the player sent is not lost with the view.
   */
  onLeft?(): void;
}

/** A reply being streamed (a turn, regenerate or continue), its progress, and Stop. */
export interface ReplyStream {
  /** The running reply, or null. */
  readonly pending: PendingReply | null;
  /** True after the player stopped a reply (until the next run or session). */
  readonly stopped: boolean;
  readonly stages: readonly StageRow[];
  readonly notes: readonly string[];
  /** Shown once per chat and kept (not reset per turn): the player needs to see it, not every turn. */
  readonly toolsNotice: string | null;
  /**
   * Streams one run, shown as `start` while it runs.
   * @param call - starts the run with the stream handlers and the Stop signal
   */
  run(start: PendingReply, call: (handlers: TurnHandlers, signal: AbortSignal) => Promise<TurnResultView>, callbacks: RunCallbacks): Promise<void>;
  /** Stop: closes the stream, so the server cancels the run and commits nothing (before `pending.committed`). */
  stop(): void;
  /** Forgets the "stopped" note (another control was used). */
  clearStopped(): void;
}

/**
 * The streaming side of the chat. Leaving the session stops its running reply, and a run that
 * ends after that leaves the new session's view alone.
 * @param sessionId - the session on screen
 */
export function useReplyStream(sessionId: string): ReplyStream {
  const [pending, setPending] = useState<PendingReply | null>(null);
  const [stopped, setStopped] = useState(false);
  const [stages, setStages] = useState<readonly StageRow[]>([]);
  const [notes, setNotes] = useState<readonly string[]>([]);
  const [toolsNotice, setToolsNotice] = useState<string | null>(null);
  const running = useRef<AbortController | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: sessionId is the reset trigger
  useEffect(() => {
    setStages([]);
    setNotes([]);
    setToolsNotice(null);
    setStopped(false);
    return () => {
      running.current?.abort();
      running.current = null;
      setPending(null);
    };
  }, [sessionId]);

  // Per run: whether its stream has reported the commit (read when the stream ends without a result).
  const committed = useRef(false);

  const handlers: TurnHandlers = {
    onStage: (progress) => setStages((rows) => addStage(rows, progress)),
    onProgress: (type, data) => {
      if (type === TURN_COMMITTED) {
        committed.current = true;
        setPending((p) => (p ? { ...p, committed: true } : p));
      }
      if (type === DIRECTOR_TOOLS_UNAVAILABLE) setToolsNotice((shown) => shown ?? TOOLS_UNAVAILABLE_NOTICE);
      const note = eventNote(type, data);
      if (note) setNotes((list) => [...list, note]);
    },
    onDelta: (delta) => setPending((p) => (p ? { ...p, reply: p.reply + delta } : p)),
    onReasoning: (delta) => setPending((p) => (p ? { ...p, reasoning: (p.reasoning ?? '') + delta } : p)),
  };

  const run: ReplyStream['run'] = async (start, call, callbacks) => {
    const controller = new AbortController();
    running.current = controller;
    const onScreen = () => running.current === controller;
    committed.current = false;
    setStopped(false);
    setStages([]);
    setNotes([]);
    setPending(start);
    try {
      const result = await call(handlers, controller.signal);
      if (!onScreen()) return;
      await callbacks.onCommitted(result);
      if (onScreen()) setPending(null);
    } catch (e) {
      if (!onScreen()) {
        if (!committed.current) callbacks.onLeft?.();
        return;
      }
      if (committed.current) {
        // Saved already: what failed or was cut is the work after the commit, not the reply.
        await callbacks.onCommitted(undefined, controller.signal.aborted ? undefined : e);
        if (onScreen()) setPending(null);
        return;
      }
      // One render: the streaming reply goes, and the chat says why.
      setPending(null);
      const wasStopped = controller.signal.aborted;
      setStopped(wasStopped);
      callbacks.onNotCommitted(wasStopped ? undefined : e);
    } finally {
      if (onScreen()) running.current = null;
    }
  };

  return {
    pending,
    stopped,
    stages,
    notes,
    toolsNotice,
    run,
    stop: () => running.current?.abort(),
    clearStopped: () => setStopped(false),
  };
}
