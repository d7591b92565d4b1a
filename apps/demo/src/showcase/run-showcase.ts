import { join } from 'node:path';
import type { TurnResult } from '@troupe/kernel';
import { selectStoryWorkspace } from '@troupe/plugin-story';
import type { CliOutput } from '../cli/output.js';
import { turnProgress } from '../cli/turn-progress.js';
import type { Demo } from '../compose.js';
import { demoPreset } from '../demo-preset.js';
import { ensureExampleStory } from '../example/create-example-story.js';
import { HARBOR_STORY_ID } from '../example/harbor-story.js';
import { type CompiledPromptProof, proveCompiledPrompt } from './compiled-prompt-proof.js';
import { REQUIREMENT_TURN, SHOWCASE_LINES } from './showcase-script.js';
import { waitForDioTask } from './wait-for-dio.js';

/** What the showcase proved, for tests and for the closing summary. */
export interface ShowcaseReport {
  readonly sessionId: string;
  readonly results: readonly TurnResult[];
  /** Status of the DIO task scheduled by the requirement turn. */
  readonly dioStatus: string | undefined;
  /** True when the last turn's actor prompt carries the compiled prompt in the roleplay slot (by SHA-256). */
  readonly compiledPromptInActorPrompt: boolean;
  /** The hashes behind {@link compiledPromptInActorPrompt}. */
  readonly proof: CompiledPromptProof;
}

/**
 * Plays the scripted session: creates (or reuses) the example story, enables it for a new
 * session, plays three turns — the second states a lasting requirement that the director sends to
 * DIO — waits for the DIO task, and shows that the next turn's actor prompt carries the compiled
 * prompt in the `roleplay` slot.
 * @param demo - the composed demo
 * @param output - where to write
 * @returns what happened
 */
export async function runShowcase(demo: Demo, output: CliOutput): Promise<ShowcaseReport> {
  output.line('Troupe demo — offline showcase');
  output.line(`  data directory : ${demo.dataDir}   (TROUPE_HOME or --data to change)`);
  output.line(`  model          : ${demo.modelId}${demo.modelId === 'offline' ? ' (a deterministic simulation; set TROUPE_MODEL_* for a real model)' : ''}`);
  output.line(`  DIO service    : ${demo.dio.url}${demo.dio.service ? ' (reference service, in-process on loopback)' : ''}`);

  const { workspace, created } = await ensureExampleStory(demo.workspaces);
  output.line(`  story          : "${workspace.manifest.name}" (${HARBOR_STORY_ID}, revision ${workspace.revision}) ${created ? 'created' : 'reused — your edits are kept'}`);
  const sessionId = `showcase-${Date.now().toString(36)}`;
  await selectStoryWorkspace(demo.storage.sessions, sessionId, HARBOR_STORY_ID);
  output.line(`  session        : ${sessionId} (story workspace enabled)`);

  const results: TurnResult[] = [];
  let dio: DioOutcome = { status: undefined, compiledPromptSha256: undefined };
  for (const [index, text] of SHOWCASE_LINES.entries()) {
    output.line();
    output.line(`Turn ${index + 1} — player: ${text}`);
    const result = await demo.harness.runTurn(demo.turnInput(sessionId, text), { onEvent: turnProgress(output) });
    output.clearStatus();
    results.push(result);
    output.line(`${demo.characterName}: ${result.reply}`);
    if (index === REQUIREMENT_TURN) dio = await reportDio(demo, output, sessionId, result);
  }

  const last = results[results.length - 1];
  // By hash: the roleplay slot's text must be exactly the prompt the DIO task compiled and the turn applied.
  const proof = proveCompiledPrompt(demoPreset, last?.prepared.history ?? [], last, dio.compiledPromptSha256);
  const compiledPromptInActorPrompt = proof.carriesCompiledPrompt;
  output.line();
  output.line(`Actor prompt of turn ${results.length} (prepared.history):`);
  for (const message of last?.prepared.history ?? []) output.line(`  [${message.role}] ${preview(message.content)}`);
  output.line(
    compiledPromptInActorPrompt
      ? `  ✓ the roleplay slot now holds the DIO compiled prompt: sha256(slot) = ${short(proof.slotSha256)}… = the task's and the applied prompt's sha256`
      : `  ✗ the roleplay slot does not hold the compiled prompt (slot ${short(proof.slotSha256)}…, task ${short(proof.taskSha256)}…, applied ${short(proof.appliedSha256)}…)`,
  );
  if (compiledPromptInActorPrompt) for (const line of (proof.slot ?? '').split('\n')) output.line(`      │ ${line}`);

  output.line();
  output.line('Where things are:');
  output.line(`  story workspace : ${join(demo.dataDir, 'story-workspaces', HARBOR_STORY_ID)}  (edit the Markdown files by hand)`);
  output.line(`  session log     : ${join(demo.dataDir, 'sessions', sessionId)}`);
  output.line(`  next            : pnpm demo session export ${sessionId}   |   pnpm demo serve --port 8080   (with npm: npm run demo -- serve --port 8080)`);
  return { sessionId, results, dioStatus: dio.status, compiledPromptInActorPrompt, proof };
}

interface DioOutcome {
  readonly status: string | undefined;
  readonly compiledPromptSha256: string | undefined;
}

async function reportDio(demo: Demo, output: CliOutput, sessionId: string, result: TurnResult): Promise<DioOutcome> {
  const scheduled = result.events.find((event) => event.type === 'dio/scheduled');
  if (!scheduled) {
    output.line('  (the director did not schedule a DIO task for this line)');
    return { status: undefined, compiledPromptSha256: undefined };
  }
  const requestId = (scheduled.data as { requestId: string }).requestId;
  output.status('  ⋯ waiting for the DIO task (the plugin polls the service every second in the background)…');
  const done = await waitForDioTask(demo.storage.sessions, sessionId, requestId);
  output.clearStatus();
  const data = (done?.data ?? {}) as { status?: string; promptChanged?: boolean; sourceVersionId?: string; compiledPromptSha256?: string };
  if (!done) output.line('  ! the DIO task did not finish within 60 s; the next turn uses what the service has');
  else output.line(`  ✓ DIO task ${data.status ?? 'ended'}: promptChanged=${String(data.promptChanged)}, sha256 ${String(data.compiledPromptSha256 ?? '—').slice(0, 12)}…`);
  return { status: data.status, compiledPromptSha256: data.compiledPromptSha256 };
}

function short(hash: string | undefined): string {
  return (hash ?? '—').slice(0, 12);
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 110 ? `${flat.slice(0, 109)}…` : flat;
}
