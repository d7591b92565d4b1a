import { Hono } from 'hono';
import { PersonaFieldsSchema, type PersonaLibrary } from '../../library/persona-library.js';
import { jsonBody, param } from '../validation.js';
import { BaseRevisionSchema, LibraryIdSchema } from './library-schemas.js';

const EditSchema = PersonaFieldsSchema.partial().extend({ baseRevision: BaseRevisionSchema }).strict();

/**
 * Persona routes under `/api/personas`: list, create, edit, delete, and choose the default.
 * @param personas - the library
 * @returns the routes
 */
export function personaRoutes(personas: PersonaLibrary): Hono {
  const app = new Hono();
  const id = (c: Parameters<typeof param>[0]) => param(c, 'personaId', LibraryIdSchema);

  app.get('/', async (c) => c.json({ ...(await personas.list()), defaultId: await personas.defaultId() }));

  app.post('/', async (c) => c.json(await personas.create(await jsonBody(c, PersonaFieldsSchema)), 201));

  app.get('/:personaId', async (c) => c.json(await personas.get(id(c))));

  app.patch('/:personaId', async (c) => {
    const personaId = id(c);
    const { baseRevision, ...edit } = await jsonBody(c, EditSchema);
    return c.json(await personas.update(personaId, baseRevision, edit));
  });

  app.put('/:personaId/default', async (c) => c.json(await personas.setDefault(id(c))));

  app.delete('/:personaId', async (c) => {
    const personaId = id(c);
    await personas.delete(personaId);
    return c.json({ deleted: true, id: personaId });
  });

  return app;
}
