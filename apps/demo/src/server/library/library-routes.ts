import { Hono } from 'hono';
import type { Demo } from '../../compose.js';
import { characterRoutes } from './character-routes.js';
import { chatRoutes } from './chat-routes.js';
import { lorebookRoutes } from './lorebook-routes.js';
import { personaRoutes } from './persona-routes.js';
import { presetLibraryRoutes } from './preset-routes.js';
import { settingsRoutes } from './settings-routes.js';
import { storyCardRoutes } from './story-card-routes.js';

/**
 * The library API, mounted at `/api`: `/characters`, `/presets`, `/personas`, `/chats`, `/lorebooks`,
 * `/settings/model`, and `/stories/:id/characters/from-library`.
 * @param demo - the composed demo
 * @returns the routes
 */
export function libraryRoutes(demo: Demo): Hono {
  const app = new Hono();
  app.route('/characters', characterRoutes(demo.library.characters));
  app.route('/presets', presetLibraryRoutes(demo.library.presets));
  app.route('/personas', personaRoutes(demo.library.personas));
  app.route('/chats', chatRoutes(demo));
  app.route('/lorebooks', lorebookRoutes(demo.library.lorebooks));
  app.route('/settings/model', settingsRoutes(demo));
  app.route('/stories', storyCardRoutes(demo));
  return app;
}
