import { useState } from 'react';
import type { StoryWorkspace } from '../../../src/wire/story.js';
import { CharactersTab } from './CharactersTab.js';
import { ConflictBanner } from './ConflictBanner.js';
import { MarkdownField } from './MarkdownField.js';
import { ProposalsTab } from './ProposalsTab.js';
import { SectionsTab } from './SectionsTab.js';
import { SettingsTab } from './SettingsTab.js';
import { SourcesTab } from './SourcesTab.js';
import type { WorkspaceEditor } from './use-workspace.js';

const TABS = [
  ['outline', '大纲 Outline'],
  ['foreshadowing', '伏笔 Foreshadowing'],
  ['characters', '人物 Characters'],
  ['sections', '分区 Sections'],
  ['sources', '资料 Sources'],
  ['proposals', '建议 Proposals'],
  ['settings', '设置 Settings'],
] as const;
type Tab = (typeof TABS)[number][0];

/** The editor of one workspace: a tab per part of it, the conflict banner and save feedback. */
export function StoryEditor({ editor, ws }: { editor: WorkspaceEditor; ws: StoryWorkspace }) {
  const [tab, setTab] = useState<Tab>('outline');
  return (
    <div className="editor" data-testid="story-editor">
      <div className="editor-head">
        <h3 data-testid="editor-title">{ws.manifest.name}</h3>
        <span className="badge" data-testid="revision">
          第 {ws.revision} 版 · rev {ws.revision}
        </span>
      </div>
      <ConflictBanner editor={editor} />
      {editor.error && (
        <p className="error-box" role="alert">
          {editor.error}
        </p>
      )}
      {editor.notice && !editor.conflict && (
        <p className="notice" data-testid="notice">
          {editor.notice}
        </p>
      )}
      <nav className="subtabs">
        {TABS.map(([id, label]) => (
          <button key={id} type="button" aria-pressed={tab === id} data-testid={`tab-${id}`} onClick={() => setTab(id)}>
            {label}
          </button>
        ))}
      </nav>
      {tab === 'outline' && <MarkdownField editor={editor} path="outline.md" label="大纲 Outline" hint="大纲只由你编辑；写作流程不会改写它。" rows={14} />}
      {tab === 'foreshadowing' && <MarkdownField editor={editor} path="foreshadowing.md" label="伏笔 Foreshadowing" rows={14} />}
      {tab === 'characters' && <CharactersTab editor={editor} ws={ws} />}
      {tab === 'sections' && <SectionsTab editor={editor} ws={ws} />}
      {tab === 'sources' && <SourcesTab editor={editor} ws={ws} />}
      {tab === 'proposals' && <ProposalsTab editor={editor} />}
      {tab === 'settings' && <SettingsTab editor={editor} ws={ws} />}
    </div>
  );
}
