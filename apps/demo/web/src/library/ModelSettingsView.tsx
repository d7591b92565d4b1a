import { useEffect, useState } from 'react';
import { api } from '../api.js';
import type { ModelSettingsAnswer, ServerSettings } from '../../../src/wire/library.js';
import { problemText } from './upload.js';

interface Props {
  /** Called after a save, so the chat's "offline" notice follows. */
  readonly onSaved: () => void;
}

interface Form {
  baseUrl: string;
  model: string;
  apiKey: string;
  contextSize: string;
  maxTokens: string;
  timeoutSeconds: string;
  storyBaseUrl: string;
  storyModel: string;
  storyApiKey: string;
  server: ServerSettings;
  storyServer: ServerSettings;
}

// Which servers need a setting other than `auto` (the provider learns the rest by itself).
const SERVER_FIELDS: readonly { key: keyof ServerSettings; label: string; options: readonly string[]; hint: string }[] = [
  { key: 'structuredOutput', label: '结构化输出 Structured output', options: ['auto', 'json_schema', 'json_object', 'prompt'], hint: 'auto: json_schema → json_object → schema in the prompt' },
  { key: 'streamUsage', label: '流式用量 Stream usage', options: ['auto', 'on', 'off'], hint: 'off for servers that refuse stream_options (Mistral)' },
  { key: 'tools', label: '工具调用 Tool calling', options: ['auto', 'on', 'off'], hint: 'off for models/servers without tools (the director then decides in JSON)' },
];

function ServerFields({ value, onChange, prefix }: { value: ServerSettings; onChange: (next: ServerSettings) => void; prefix: string }) {
  return (
    <div className="row wrap">
      {SERVER_FIELDS.map((field) => (
        <label key={field.key} title={field.hint}>
          {field.label}
          <select data-testid={`${prefix}-${field.key}`} value={value[field.key]} onChange={(e) => onChange({ ...value, [field.key]: e.target.value })}>
            {field.options.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </label>
      ))}
    </div>
  );
}

function serverOf(value: ServerSettings): ServerSettings {
  return { structuredOutput: value.structuredOutput, streamUsage: value.streamUsage, tools: value.tools };
}

const SOURCE_TEXT: Readonly<Record<ModelSettingsAnswer['source'], string>> = {
  offline: '离线模拟正在回答（没有配置模型服务器）。The offline simulation is answering: no model server is set.',
  settings: '正在使用下面保存的模型服务器。Turns use the model server saved below.',
  environment: '环境变量 TROUPE_MODEL_BASE_URL 已设置，优先于这里的设置。The environment variables are set and win over these settings.',
};

// The form's text for saved settings; keys are never part of it (the server keeps them).
function formOf(value: ModelSettingsAnswer): Form {
  const s = value.settings;
  return {
    baseUrl: s.baseUrl ?? '',
    model: s.model ?? '',
    apiKey: '',
    contextSize: s.contextSize?.toString() ?? '',
    maxTokens: s.maxTokens?.toString() ?? '',
    timeoutSeconds: s.timeoutSeconds?.toString() ?? '',
    storyBaseUrl: s.story.baseUrl ?? '',
    storyModel: s.story.model ?? '',
    storyApiKey: '',
    server: serverOf(s),
    storyServer: serverOf(s.story),
  };
}

/**
 * Model connection settings: an OpenAI-compatible base URL, model and API key (kept on the server,
 * never shown again), "test connection" listing the server's models, context size and response
 * length, and the story pipeline's own server.
 */
export function ModelSettingsView({ onSaved }: Props) {
  const [answer, setAnswer] = useState<ModelSettingsAnswer | null>(null);
  const [form, setForm] = useState<Form | null>(null);
  const [models, setModels] = useState<readonly string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  const load = (value: ModelSettingsAnswer) => {
    setAnswer(value);
    setForm(formOf(value));
  };
  useEffect(() => {
    api<ModelSettingsAnswer>('GET', '/api/settings/model').then(
      (value) => {
        setAnswer(value);
        setForm(formOf(value));
      },
      (e: unknown) => setError(problemText(e)),
    );
  }, []);
  if (!answer || !form) return error ? <p className="error-box">{error}</p> : <p className="muted">…</p>;

  const set = (key: keyof Form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  // '' clears a setting; anything else must be a whole number ("8k" or "2 min" is not: it is
  // refused here, never sent as null, which would clear the setting and still say "Saved").
  const number = (label: string, text: string): number | null => {
    const trimmed = text.trim();
    if (trimmed === '') return null;
    if (!/^\d+$/.test(trimmed)) throw new Error(`${label}: write a whole number (or leave it empty for the default), not "${trimmed}"`);
    return Number(trimmed);
  };

  const test = async () => {
    setError(null);
    setModels(null);
    try {
      const body = { baseUrl: form.baseUrl.trim(), ...(form.apiKey ? { apiKey: form.apiKey } : answer.settings.hasApiKey ? { useSavedKey: 'chat' } : {}) };
      setModels((await api<{ models: string[] }>('POST', '/api/settings/model/test', body)).models);
    } catch (e) {
      setError(problemText(e));
    }
  };

  const save = async () => {
    setError(null);
    setSaved(false);
    try {
      const next = await api<ModelSettingsAnswer>('PUT', '/api/settings/model', {
        baseUrl: form.baseUrl.trim(),
        model: form.model.trim(),
        ...(form.apiKey ? { apiKey: form.apiKey } : {}),
        contextSize: number('上下文 Context size', form.contextSize),
        maxTokens: number('回复长度 Response length', form.maxTokens),
        timeoutSeconds: number('等待首字 Wait for the first token', form.timeoutSeconds),
        ...form.server,
        story: { baseUrl: form.storyBaseUrl.trim(), model: form.storyModel.trim(), ...(form.storyApiKey ? { apiKey: form.storyApiKey } : {}), ...form.storyServer },
      });
      load(next);
      setSaved(true);
      onSaved();
    } catch (e) {
      setError(problemText(e));
    }
  };

  const clearKey = async (which: 'chat' | 'story') => {
    try {
      load(await api<ModelSettingsAnswer>('PUT', '/api/settings/model', which === 'chat' ? { apiKey: null } : { story: { apiKey: null } }));
    } catch (e) {
      setError(problemText(e));
    }
  };

  return (
    <div className="model-settings settings" data-testid="model-settings">
      <p className={answer.source === 'offline' ? 'notice warn-box' : 'notice'} data-testid="model-source">
        {SOURCE_TEXT[answer.source]} <span className="muted">({answer.modelId})</span>
      </p>
      {answer.problem && <p className="error-box">{answer.problem}</p>}
      <fieldset className="item">
        <legend>对话模型 Chat model (OpenAI-compatible: Ollama, llama.cpp, vLLM, LM Studio, OpenAI)</legend>
        <label>
          Base URL
          <input data-testid="model-base-url" placeholder="http://127.0.0.1:11434/v1" value={form.baseUrl} onChange={set('baseUrl')} />
        </label>
        <label>
          模型 Model
          <input data-testid="model-name" list="model-options" value={form.model} onChange={set('model')} />
          <datalist id="model-options">
            {(models ?? []).map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>
        <label>
          API key {answer.settings.hasApiKey && <span className="badge ok">已保存 saved</span>}
          <input data-testid="model-api-key" type="password" autoComplete="off" placeholder={answer.settings.hasApiKey ? '（不变 unchanged）' : ''} value={form.apiKey} onChange={set('apiKey')} />
        </label>
        {answer.settings.hasApiKey && (
          <button type="button" className="secondary" onClick={() => void clearKey('chat')}>
            清除密钥 Clear key
          </button>
        )}
        <div className="row wrap">
          <button type="button" className="secondary" data-testid="test-connection" onClick={test} disabled={form.baseUrl.trim() === ''}>
            测试连接 Test connection
          </button>
          {models && (
            <span className="small" data-testid="model-list">
              {models.length} models:{' '}
              {models.map((m) => (
                <button key={m} type="button" className="badge link" onClick={() => setForm({ ...form, model: m })}>
                  {m}
                </button>
              ))}
            </span>
          )}
        </div>
        <div className="row wrap">
          <label>
            上下文 Context size (tokens)
            <input data-testid="model-context-size" className="narrow-wide" inputMode="numeric" value={form.contextSize} onChange={set('contextSize')} />
          </label>
          <label>
            回复长度 Response length (max tokens)
            <input data-testid="model-max-tokens" className="narrow-wide" inputMode="numeric" value={form.maxTokens} onChange={set('maxTokens')} />
          </label>
          <label title="How long the model may take to start answering: loading a model or reading a long prompt takes minutes on a local server (default 300 s)">
            等待首字 Wait for the first token (s)
            <input data-testid="model-timeout" className="narrow-wide" inputMode="numeric" placeholder="300" value={form.timeoutSeconds} onChange={set('timeoutSeconds')} />
          </label>
        </div>
        <ServerFields prefix="model" value={form.server} onChange={(server) => setForm({ ...form, server })} />
      </fieldset>
      <fieldset className="item">
        <legend>故事流程模型 Story pipeline model (provider “story”)</legend>
        <p className="hint muted">A story workspace whose pipeline settings name provider “story” uses this server; others use the chat model.</p>
        <label>
          Base URL
          <input data-testid="story-base-url" value={form.storyBaseUrl} onChange={set('storyBaseUrl')} />
        </label>
        <label>
          模型 Model
          <input data-testid="story-model" value={form.storyModel} onChange={set('storyModel')} />
        </label>
        <label>
          API key {answer.settings.story.hasApiKey && <span className="badge ok">已保存 saved</span>}
          <input type="password" autoComplete="off" value={form.storyApiKey} onChange={set('storyApiKey')} />
        </label>
        {answer.settings.story.hasApiKey && (
          <button type="button" className="secondary" onClick={() => void clearKey('story')}>
            清除密钥 Clear key
          </button>
        )}
        <ServerFields prefix="story" value={form.storyServer} onChange={(storyServer) => setForm({ ...form, storyServer })} />
      </fieldset>
      <div className="row">
        <button type="button" data-testid="save-model-settings" onClick={save}>
          保存 Save
        </button>
        {saved && <span className="badge ok">已保存 Saved</span>}
      </div>
      {error && (
        <p className="error-box" role="alert" data-testid="model-error">
          {error}
        </p>
      )}
    </div>
  );
}
