import { useCallback, useEffect, useState } from 'react';
import { api } from '../api.js';
import type { Persona } from '../../../src/wire/library.js';
import { problemText } from './upload.js';

/** The player's personas: name (`{{user}}`) and description (`{{persona}}`), one of them the default. */
export function PersonasView() {
  const [personas, setPersonas] = useState<readonly Persona[]>([]);
  // Personas a hand edit broke: shown with what is wrong, as the character list does.
  const [broken, setBroken] = useState<readonly { id: string; message: string }[]>([]);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    const list = await api<{ personas: Persona[]; broken: { id: string; message: string }[] }>('GET', '/api/personas');
    setPersonas(list.personas);
    setBroken(list.broken);
  }, []);
  useEffect(() => {
    refresh().catch((e: unknown) => setError(problemText(e)));
  }, [refresh]);

  const run = async (action: () => Promise<unknown>) => {
    setError(null);
    try {
      await action();
      await refresh();
    } catch (e) {
      setError(problemText(e));
    }
  };

  return (
    <div className="personas" data-testid="personas">
      <form
        className="add-form column item"
        onSubmit={(e) => {
          e.preventDefault();
          void run(async () => {
            await api('POST', '/api/personas', { name, description });
            setName('');
            setDescription('');
          });
        }}
      >
        <strong>新人设 New persona</strong>
        <input data-testid="persona-name" placeholder="名字 Name ({{user}})" value={name} onChange={(e) => setName(e.target.value)} />
        <textarea data-testid="persona-description" rows={3} placeholder="描述 Description ({{persona}})" value={description} onChange={(e) => setDescription(e.target.value)} />
        <button type="submit" data-testid="create-persona" disabled={name.trim() === ''}>
          创建 Create
        </button>
      </form>
      {error && (
        <p className="error-box" role="alert">
          {error}
        </p>
      )}
      {personas.map((p) => (
        <PersonaItem key={`${p.id}-${p.revision}`} persona={p} run={run} />
      ))}
      {broken.map((b) => (
        <p key={b.id} className="error-text small" data-testid={`persona-broken-${b.id}`}>
          {b.id}: {b.message}
        </p>
      ))}
    </div>
  );
}

function PersonaItem({ persona, run }: { persona: Persona; run: (action: () => Promise<unknown>) => Promise<void> }) {
  const [name, setName] = useState(persona.name);
  const [description, setDescription] = useState(persona.description);
  return (
    <fieldset className="item" data-testid={`persona-${persona.id}`}>
      <legend>
        {persona.name} {persona.isDefault && <span className="badge ok">默认 default</span>}
      </legend>
      <input value={name} onChange={(e) => setName(e.target.value)} aria-label="name" />
      <textarea rows={2} value={description} onChange={(e) => setDescription(e.target.value)} aria-label="description" />
      <div className="row">
        <button type="button" onClick={() => void run(() => api('PATCH', `/api/personas/${persona.id}`, { baseRevision: persona.revision, name, description }))}>
          保存 Save
        </button>
        {!persona.isDefault && (
          <>
            <button type="button" className="secondary" onClick={() => void run(() => api('PUT', `/api/personas/${persona.id}/default`))}>
              设为默认 Make default
            </button>
            <button
              type="button"
              className="danger"
              data-testid="delete-persona"
              onClick={() => {
                // Chats that use the persona go on with the default one: said before anything is deleted.
                if (confirm(`删除人设 ${persona.name}？使用它的聊天将改用默认人设。Delete the persona ${persona.name}? Chats that use it switch to the default persona.`)) void run(() => api('DELETE', `/api/personas/${persona.id}`));
              }}
            >
              删除 Delete
            </button>
          </>
        )}
      </div>
    </fieldset>
  );
}
