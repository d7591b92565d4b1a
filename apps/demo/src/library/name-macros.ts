// Card text is written with `{{char}}` / `{{user}}` (and the Tavern-era `<BOT>` / `<USER>`). Text
// that reaches a model outside the assembler — a story workspace's persona.md, the DIO base
// prompt, a greeting shown in the chat — gets the names put in here, the way SillyTavern does.

/** The names to put in for `{{char}}` and `{{user}}`. */
export interface ChatNames {
  readonly char: string;
  readonly user: string;
}

const NAME_MACRO = /\{\{\s*(char|user)\s*\}\}|<(BOT|USER)>/gi;

/**
 * Replaces `{{char}}`, `{{user}}`, `<BOT>` and `<USER>` (any case) with the names; every other
 * macro is left as it is.
 * @param text - card text
 * @param names - the character's and the player's names
 * @returns the text with the names in place
 */
export function substituteNames(text: string, names: ChatNames): string {
  return text.replace(NAME_MACRO, (_match, braced: string | undefined, legacy: string | undefined) => {
    const which = (braced ?? legacy ?? '').toLowerCase();
    return which === 'user' ? names.user : names.char;
  });
}
