import { useEffect, useState } from 'react';
import { api } from '../api.js';
import type { ChatView, Persona, PresetSummary } from '../../../src/wire/library.js';
import { problemText } from '../library/upload.js';

interface Props {
  readonly chat: ChatView;
  readonly onChange: (chat: ChatView) => void;
  /** Changes when the preset or persona lists may have changed. */
  readonly libraryVersion: number;
}

/** A library chat's header: who is played, and the preset and persona it uses (changeable per chat). */
export function ChatHeader({ chat, onChange, libraryVersion }: Props) {
  const [presets, setPresets] = useState<readonly PresetSummary[]>([]);
  const [personas, setPersonas] = useState<readonly Persona[]>([]);
  const [error, setError] = useState<string | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: libraryVersion is the reload trigger
  useEffect(() => {
    api<{ presets: PresetSummary[] }>('GET', '/api/presets').then((r) => setPresets(r.presets), () => {});
    api<{ personas: Persona[] }>('GET', '/api/personas').then((r) => setPersonas(r.personas), () => {});
  }, [libraryVersion]);

  const change = async (body: Record<string, unknown>) => {
    setError(null);
    try {
      onChange(await api<ChatView>('PATCH', `/api/chats/${chat.id}`, body));
    } catch (e) {
      setError(problemText(e));
    }
  };

  if (chat.problem) {
    return (
      <p className="error-box" role="alert" data-testid="chat-problem">
        {chat.problem}
      </p>
    );
  }
  return (
    <div className="chat-header" data-testid="chat-header">
      {chat.character?.hasAvatar && <img className="avatar" src={`/api/characters/${chat.characterId}/avatar`} alt="" />}
      <strong data-testid="chat-character">{chat.character?.displayName}</strong>
      <label className="small">
        预设 Preset
        <select data-testid="chat-preset" value={chat.preset?.id ?? chat.presetId} onChange={(e) => void change({ presetId: e.target.value })}>
          {presets.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <label className="small">
        人设 Persona
        <select data-testid="chat-persona" value={chat.persona?.id ?? chat.personaId} onChange={(e) => void change({ personaId: e.target.value })}>
          {personas.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <label className="check small" title="V2 spec: the card's system_prompt and post_history_instructions replace the preset's">
        <input type="checkbox" data-testid="chat-card-prompts" checked={chat.useCardPrompts} onChange={(e) => void change({ useCardPrompts: e.target.checked })} />
        卡片提示 Card prompts
      </label>
      <span className={`badge ${chat.dio.enabled ? 'ok' : 'warn'}`} data-testid="chat-dio" title={chat.dio.reason ?? chat.dio.targetPromptId ?? ''}>
        DIO {chat.dio.enabled ? '✓' : '✗ (preset has no DIO slot)'}
      </span>
      {error && <span className="error-text small">{error}</span>}
    </div>
  );
}
