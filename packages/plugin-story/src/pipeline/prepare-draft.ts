import { abortReason, DeadlineGroup, describeError, runWithin } from '@troupe/kernel/util';
import type { ChatMessage } from '@troupe/kernel';
import { type DraftBudget, draftBudget } from '../budget/draft-budget.js';
import { type ClippedDraft, fitDrafts } from '../budget/fit-drafts.js';
import { StoryError } from '../errors.js';
import { STORY_EVENTS } from '../events.js';
import { windowDocument } from '../retrieval/document-window.js';
import type { GrowingTextIndex } from '../retrieval/growing-text-index.js';
import type { SourceIndex } from '../retrieval/source-index.js';
import { capSnippets, type RetrievalLimits, type Snippet } from '../retrieval/snippet.js';
import { type CharacterProposal, runCharacter } from '../stages/character.js';
import { type DirectorInput, type DirectorPlan, fallbackPlan, runDirector } from '../stages/director.js';
import { assembleDrafts, editorMessages, runEditor, type SectionDraft } from '../stages/editor.js';
import { briefFromSnippets, type ResearchBrief, runResearch } from '../stages/research.js';
import { runSection } from '../stages/section.js';
import type { WebSearchProvider } from '../web/web-search.js';
import { knowledgePath, personaPath, sectionPath, sourcePath, WORKSPACE_FILES } from '../workspace/layout.js';
import type { StoryManifest } from '../workspace/manifest.js';
import { mapBounded } from './limiter.js';
import { manifestPlan } from './manifest-plan.js';
import { deadlineError, deadlinePassed, type StageEnvironment, stageBudget } from './stage-call.js';

/** Everything one preparation needs. */
export interface PrepareDraftInput {
  readonly env: StageEnvironment;
  readonly manifest: StoryManifest;
  readonly files: Readonly<Record<string, string>>;
  /** The workspace revision `files` were read at (the growing documents' indexes use it). */
  readonly revision?: number;
  readonly playerInput: string;
  readonly recentConversation: readonly ChatMessage[];
  readonly index: SourceIndex;
  /** The search index of a growing workspace document (`history.md`, a `knowledge.md`) by path. */
  readonly documentIndex: (path: string) => GrowingTextIndex;
  readonly limits: RetrievalLimits;
  readonly webSearch?: WebSearchProvider | undefined;
  /** World info activated this turn, as snippets: public material for the research worker only. */
  readonly worldInfo?: readonly Snippet[];
  /** What the draft may take of the actor's prompt (default: the kernel's default turn budget). */
  readonly draftBudget?: DraftBudget;
}

/**
 * Runs the fixed stage order — retrieval → research → characters → director → sections → editor —
 * with the seed's degradations, each recorded as an `agent-rp/story-degraded` event. Retrieval caps
 * apply once to local and web snippets together.
 * @param input - the turn's environment, the workspace's manifest and files, the player input,
 *   recent conversation, the source index, the retrieval caps and the optional web search
 * The preparation deadline (`env.deadlineAt`) bounds every stage call; a stage cut by it records
 * a failed result and degrades like any failure. Once it has passed, no further stage starts: a
 * passed deadline before the sections are written ends the preparation (plain character flow);
 * during the editor, the section drafts go to the actor.
 * @returns the edited draft text
 * @throws {StoryError} STORY_NO_SECTIONS when every section failed, STORY_DEADLINE_EXCEEDED when the
 *   deadline passed before the sections were written (the caller falls back to the plain character
 *   flow); the abort reason when cancelled (never degraded)
 */
export async function prepareDraft(input: PrepareDraftInput): Promise<string> {
  // One timer and one listener on the turn's signal for every stage call of the preparation,
  // released when it ends (a call cut by cancellation or its limit has settled by then).
  const deadlines = new DeadlineGroup(input.env.clock, input.env.signal);
  try {
    return await prepareStages({ ...input, env: { ...input.env, deadlines } });
  } finally {
    deadlines.close();
  }
}

async function prepareStages(input: PrepareDraftInput): Promise<string> {
  const { env, manifest, files, playerInput } = input;
  // The waves' stage calls run in the deadline group `prepareDraft` made on `env.signal`: a
  // cancellation rejects every one of them, so the waves need no abort listener of their own.
  const wave = { jobsEndOnAbort: true };
  const maxParallel = manifest.pipeline.maxParallel;
  const stopIfLate = (next: string) => {
    if (deadlinePassed(env)) throw deadlineError(env, next);
  };
  const degrade = (stage: string, fallback: string, error: unknown, item?: string) => {
    if (env.signal.aborted) throw abortReason(env.signal);
    const described = describeError(error);
    env.emit(STORY_EVENTS.degraded, { stage, ...(item ? { item } : {}), fallback, error: { code: described.code ?? 'STORY_STAGE_MODEL_FAILED', message: described.message } });
  };

  // 1. Retrieval: local snippets, plus web results when available (a web failure drops only those).
  const budget = stageBudget(env);
  const plan = manifestPlan(manifest);
  input.index.update(plan.sources.map((s) => ({ id: s.id, title: s.title, text: files[sourcePath(s.id)] ?? '' })));
  const queryText = [...input.recentConversation.map((m) => m.content), playerInput].join('\n');
  // Growing documents reach a stage as a recent window plus older excerpts retrieved for what
  // that stage itself may read, never whole: the prompt stays within budget at any length.
  // The recent window is the last few settled turns (at most 60 % of the tokens); a few older
  // excerpts take what it leaves.
  const windowed = (path: string, tokens: number, query: string) =>
    windowDocument(files[path] ?? '', input.documentIndex(path), {
      tokens,
      recentTokens: Math.ceil(tokens * 0.6),
      recentBlocks: budget.recentTurns,
      excerpts: budget.olderExcerpts,
      query,
      count: budget.count,
      ...(input.revision === undefined ? {} : { revision: input.revision }),
    });
  const publicHistory = windowed(WORKSPACE_FILES.history, budget.historyTokens, queryText);
  const local = input.index.query(queryText, input.limits);
  const web = input.webSearch && manifest.pipeline.webSearch ? await searchWeb(input, degrade) : [];
  // One cap over the merged list: the caps bound what research receives, not each origin. Local
  // snippets rank first (they are the player's own sources), then the world info activated this
  // turn (keyword-relevant public lore); a web failure leaves `web` empty, so it removes only the
  // web results.
  const snippets = capSnippets([...local, ...(input.worldInfo ?? []), ...web], input.limits);

  // 2. Research worker. Its request goes out first; what the characters read depends only on
  // the player input, so their inputs are built while research waits for the model, not between
  // its answer and their requests.
  stopIfLate('story/research');
  const researching = started(() => runResearch(env, { publicHistory, recentConversation: input.recentConversation, snippets, playerInput }));
  const { characters, sections } = plan;
  const characterInputs = characters.map((c) => ({
    character: { id: c.id, name: c.name },
    persona: files[personaPath(c.id)] ?? '',
    // A character's older knowledge is searched with the player input only (its whole scope).
    knowledge: windowed(knowledgePath(c.id), budget.knowledgeTokens, playerInput),
    playerInput,
  }));
  let research: ResearchBrief;
  try {
    research = await researching;
  } catch (error) {
    degrade('story/research', 'snippets', error);
    research = briefFromSnippets(snippets);
  }

  // 3. Character workers, each on its own files only. The director's history excerpts (chosen by
  // the input and the brief) are picked while the characters wait for the model.
  stopIfLate('story/character');
  // Stage calls end at once on cancellation (the deadline group listens to the turn's signal),
  // so the waves add no listener of their own.
  const characterRuns = started(() => mapBounded(characterInputs, maxParallel, env.signal, (characterInput) => runCharacter(env, characterInput), wave));
  const directorHistory = windowed(WORKSPACE_FILES.history, budget.historyTokens, [playerInput, ...research.facts].join('\n'));
  const settled = await characterRuns;
  const proposals: { characterId: string; name: string; proposal: CharacterProposal }[] = [];
  settled.forEach((result, i) => {
    const c = characters[i]!;
    if (result.status === 'fulfilled') proposals.push({ characterId: c.id, name: c.name, proposal: result.value });
    else degrade('story/character', 'skipped', result.reason, c.id);
  });

  // 4. Director.
  stopIfLate('story/director');
  const directorInput: DirectorInput = {
    outline: files[WORKSPACE_FILES.outline] ?? '',
    foreshadowing: files[WORKSPACE_FILES.foreshadowing] ?? '',
    // The director's excerpts are chosen by its own inputs (the input and the brief).
    publicHistory: directorHistory,
    research,
    proposals,
    sections,
    playerInput,
  };
  let directorPlan: DirectorPlan;
  try {
    directorPlan = await runDirector(env, directorInput);
  } catch (error) {
    degrade('story/director', 'fallback-plan', error);
    directorPlan = fallbackPlan(directorInput);
  }

  // 5. Section writers, in manifest order.
  stopIfLate('story/section');
  const written = await mapBounded(
    sections,
    maxParallel,
    env.signal,
    (section) => runSection(env, { section, reference: files[sectionPath(section.id)] ?? '', plan: directorPlan, playerInput }),
    wave,
  );
  const drafts: SectionDraft[] = [];
  written.forEach((result, i) => {
    const s = sections[i]!;
    if (result.status === 'fulfilled') drafts.push({ id: s.id, title: s.title, kind: s.kind, text: result.value });
    else degrade('story/section', 'skipped', result.reason, s.id);
  });
  if (drafts.length === 0) throw new StoryError('STORY_NO_SECTIONS', 'Every story section failed, so there is no draft');

  // 6. Editor, on drafts that fit both its own prompt and the actor's draft budget (the section
  // drafts are the editor's fallback, so they must fit the actor too).
  const limit = input.draftBudget ?? draftBudget(undefined);
  const fitting = boundDrafts(drafts, env, limit, degrade);
  try {
    return await runEditor(env, { drafts: fitting }, limit);
  } catch (error) {
    degrade('story/editor', 'section-drafts', error);
    return assembleDrafts(fitting);
  }
}

// Section answers are the model's and may be any length: cut to what the editor's prompt and the
// actor's draft budget take, each cut a visible degradation. A section left with nothing is skipped.
function boundDrafts(drafts: readonly SectionDraft[], env: StageEnvironment, limit: DraftBudget, degrade: (stage: string, fallback: string, error: unknown, item?: string) => void): readonly SectionDraft[] {
  const budget = stageBudget(env);
  const editorRoom = budget.promptTokens - budget.countMessages(editorMessages({ drafts: drafts.map((d) => ({ ...d, text: '' })) }));
  const byEditor = fitDrafts(drafts, editorRoom, budget.count);
  const byActor = fitDrafts(byEditor.drafts, limit.tokens, limit.count);
  const report = (outcome: ClippedDraft, fallback: 'clipped' | 'skipped') =>
    degrade(
      'story/section',
      fallback,
      new StoryError(
        'STORY_STAGE_OUTPUT_TOO_LARGE',
        `The "${outcome.title}" section wrote ≈${outcome.tokens} tokens; the drafts may take ${Math.min(editorRoom, limit.tokens)} (the editor's prompt, and half of the actor's ${limit.promptTokens}-token prompt), so ${fallback === 'clipped' ? `it was cut to its first ≈${outcome.kept}` : 'it was left out'}`,
      ),
      outcome.id,
    );
  // A section cut twice is reported once: the size it was written at, what it kept in the end.
  const written = new Map(byEditor.clipped.map((c) => [c.id, c.tokens]));
  const original = (c: ClippedDraft): ClippedDraft => ({ ...c, tokens: written.get(c.id) ?? c.tokens });
  const clipped = new Map([...byEditor.clipped, ...byActor.clipped].map((c) => [c.id, original(c)]));
  for (const dropped of [...byEditor.dropped, ...byActor.dropped]) {
    clipped.delete(dropped.id);
    report(original(dropped), 'skipped');
  }
  for (const outcome of clipped.values()) report(outcome, 'clipped');
  if (byActor.drafts.length === 0) throw new StoryError('STORY_DRAFT_TOO_LARGE', `No section draft fits the ${limit.tokens} tokens the actor's prompt leaves the story draft`);
  return byActor.drafts;
}

/**
 * Starts `run` now and returns its promise, awaited later: a synchronous throw becomes a rejection,
 * and the promise counts as handled at once, so work done before the `await` (which may throw
 * itself) never leaves an unhandled rejection behind.
 */
function started<T>(run: () => Promise<T>): Promise<T> {
  let promise: Promise<T>;
  try {
    promise = run();
  } catch (error) {
    promise = Promise.reject(error);
  }
  promise.catch(() => undefined);
  return promise;
}

async function searchWeb(input: PrepareDraftInput, degrade: (stage: string, fallback: string, error: unknown) => void): Promise<Snippet[]> {
  const provider = input.webSearch!;
  const { env } = input;
  try {
    // Web search counts against the preparation deadline like a stage call.
    const results = await runWithin(env.clock, Math.min(env.deadlineAt - env.clock.now(), env.stageTimeoutMs), env.signal, () => deadlineError(env, 'web search'), (signal) =>
      provider.search(input.playerInput, { signal, limit: input.limits.maxSnippets }),
    );
    env.emit(STORY_EVENTS.webRetrieval, { provider: provider.id, query: input.playerInput, ok: true, results });
    return results.map((r) => ({ origin: 'web' as const, ref: r.url, title: r.title, text: r.snippet }));
  } catch (error) {
    if (env.signal.aborted) throw abortReason(env.signal);
    const described = describeError(error);
    env.emit(STORY_EVENTS.webRetrieval, { provider: provider.id, query: input.playerInput, ok: false, error: { code: described.code ?? 'STORY_WEB_SEARCH_FAILED', message: described.message } });
    degrade('web', 'local-only', error);
    return [];
  }
}
