import { StoryError, type StoryWorkspaces, type StoryWorkspaceSnapshot } from '@troupe/plugin-story';
import { HARBOR_STORY_ID, harborManifest, harborStoryFiles } from './harbor-story.js';

/**
 * Creates the example workspace, or returns the existing one untouched: a player may have
 * edited it since the last showcase, and those edits are theirs.
 * @param workspaces - the editing API
 * @returns the workspace and whether it was created now
 */
export async function ensureExampleStory(workspaces: StoryWorkspaces): Promise<{ workspace: StoryWorkspaceSnapshot; created: boolean }> {
  try {
    return { workspace: await workspaces.read(HARBOR_STORY_ID), created: false };
  } catch (error) {
    if (!(StoryError.isInstance(error) && error.code === 'STORY_WORKSPACE_NOT_FOUND')) throw error;
  }
  const { 'outline.md': outline, 'foreshadowing.md': foreshadowing, ...rest } = harborStoryFiles;
  const created = await workspaces.create(HARBOR_STORY_ID, { name: harborManifest.name, outline: outline ?? '', foreshadowing: foreshadowing ?? '' });
  const workspace = await workspaces.writeFiles(HARBOR_STORY_ID, created.revision, { ...rest, 'manifest.json': JSON.stringify(harborManifest) });
  return { workspace, created: true };
}
