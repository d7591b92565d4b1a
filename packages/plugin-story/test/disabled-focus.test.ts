import { describe, expect, it } from 'vitest';
import { requestText, storyHarness } from './helpers.js';

describe('a section focused on a character who is disabled (seed: 人物只有在工程中启用时才参与当前场景推演)', () => {
  it('falls back to all participants, as when he is deleted, and the focus comes back when he is enabled again', async () => {
    const { harness, model, workspaces } = await storyHarness();
    let ws = await workspaces.read('tale');
    ws = await workspaces.updateCharacter('tale', ws.revision, 'lia', { enabled: false });
    await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't1' });
    const director = requestText(model.callsFor('story/director')[0]!);
    expect(director).toContain(`"Lia's view" focus: all participants`);
    const section = model.callsFor('story/section').find((r) => requestText(r).includes(`"Lia's view"`))!;
    expect(section.messages[0]?.content).toContain('Focus: all participants');
    expect(requestText(section)).not.toContain('Lia (lia)');
    // The manifest keeps the player's choice: enabling Lia again focuses the section on her.
    expect(ws.manifest.sections.find((s) => s.id === 'lia-view')?.focus).toBe('lia');
    ws = await workspaces.updateCharacter('tale', (await workspaces.read('tale')).revision, 'lia', { enabled: true });
    await harness.runTurn({ sessionId: 's1', text: 'go', turnId: 't2' });
    expect(requestText(model.callsFor('story/director')[1]!)).toContain(`"Lia's view" focus: Lia`);
  });
});
