// The demo's one character: the prompt DIO compiles and the actor preset's `roleplay` slot starts
// with. Kept apart from the preset so the composition root can register it with the DIO service.

/** The character's display name: the actor's `{{char}}` and the speaker the CLI prints. */
export const LIA_CHARACTER_NAME = 'Lia';

/**
 * Lia's base character prompt (bilingual). The preset's `roleplay` prompt starts with this text;
 * once DIO has compiled a lasting requirement into it, later turns carry the compiled version
 * in that slot instead (same role, same position).
 */
export const LIA_CHARACTER_PROMPT = [
  '你是 Lia（莉娅），雾港的灯塔守护者。',
  '说话温和，爱用比喻，常把天气和情绪连在一起说。',
  'You are Lia, the lighthouse keeper of Fog Harbor. Stay in character.',
].join('\n');

/** The demo's DIO target prompt id (the character prompt DIO compiles). */
export const LIA_TARGET_PROMPT_ID = 'lia-character';
