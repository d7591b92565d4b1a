import type { CliOutput } from './output.js';

const STAGE_LABELS: Readonly<Record<string, string>> = {
  'story/research': 'research',
  'story/character': 'character',
  'story/director': 'director',
  'story/section': 'section',
  'story/editor': 'editor',
  'story/continuity': 'continuity',
};

/** A live event from `runTurn`'s `onEvent`. */
export interface LiveEvent {
  readonly type: string;
  readonly data: unknown;
}

/**
 * Turns live turn events into progress output: a redrawn status line in a terminal, one plain
 * line per finished stage otherwise. Returns the `onEvent` callback for `runTurn`; reused across
 * turns, it says that the director's tools are unavailable (or replaced by JSON decisions) once.
 * @param output - where to write
 * @returns the `onEvent` callback
 */
export function turnProgress(output: CliOutput): (event: LiveEvent) => void {
  const running = new Map<string, number>();
  const noticed = new Set<string>();
  const once = (key: string, text: string): void => {
    if (noticed.has(key)) return;
    noticed.add(key);
    output.line(text);
  };
  return (event) => {
    const data = (event.data ?? {}) as Record<string, unknown>;
    const stage = typeof data.stage === 'string' ? data.stage : '';
    // Story stage events name their worker (a character or section id) in `item`: parallel
    // workers of one stage must keep separate labels, or one finishing would hide the others.
    const label = `${STAGE_LABELS[stage] ?? stage}${typeof data.item === 'string' ? `:${data.item}` : ''}`;
    switch (event.type) {
      case 'agent-rp/story-stage-request':
        running.set(label, (running.get(label) ?? 0) + 1);
        output.status(`  ⋯ story pipeline: ${[...running.keys()].join(', ')}`);
        break;
      case 'agent-rp/story-stage-result': {
        const left = (running.get(label) ?? 1) - 1;
        if (left > 0) running.set(label, left);
        else running.delete(label);
        output.line(`  ${data.ok === false ? '✗' : '✓'} ${label}${data.ok === false ? ` (${describe(data.error)})` : ''}`);
        // The finished line replaced the status line: redraw what is still running.
        if (running.size > 0) output.status(`  ⋯ story pipeline: ${[...running.keys()].join(', ')}`);
        break;
      }
      case 'agent-rp/story-degraded':
        output.line(`  ! story degraded: ${describe(data)}`);
        break;
      case 'agent-rp/story-draft-replayed':
        output.line('  ↺ story draft replayed from the session log (no model calls)');
        break;
      case 'kernel/tool-called':
        output.line(`  ▸ director called ${String(data.tool)}${data.ok === false ? ` → ${describe(data.error)}` : ''}`);
        break;
      case 'kernel/director-json-fallback':
        once(event.type, `  ▸ the director model cannot call tools (${String(data.reason)}${data.status ? `, HTTP ${String(data.status)}` : ''}); it is asked for a JSON decision instead`);
        break;
      case 'kernel/director-tools-unavailable':
        once(event.type, `  ! the director's tools (${Array.isArray(data.tools) ? data.tools.join(', ') : ''}) could not be offered: ${String(data.reason)} — lasting requirements (DIO) are not submitted`);
        break;
      case 'dio/scheduled':
        output.line(`  ▸ DIO accepted the requirement (request ${String(data.requestId)}, applies from the next turn)`);
        break;
      case 'dio/active-prompt-applied':
        output.line(`  ▸ DIO compiled prompt ${String(data.versionId ?? '')} applied (sha256 ${String(data.compiledPromptSha256 ?? '').slice(0, 12)}…)`);
        break;
      case 'dio/active-prompt-degraded':
        output.line(`  ! DIO lookup degraded: ${describe(data)}`);
        break;
      default:
        break;
    }
  };
}

function describe(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  const record = value as Record<string, unknown>;
  return String(record.message ?? record.code ?? record.reason ?? JSON.stringify(record)).slice(0, 160);
}
