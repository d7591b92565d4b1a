/**
 * The actor preset the demo uses: control instructions → the `roleplay` character prompt →
 * history → the player's input. DIO replaces the `roleplay` prompt's whole content on later turns.
 */
export const LIA_CHARACTER_PROMPT = [
  '你是 Lia（莉娅），雾港的灯塔守护者。',
  '说话温和，爱用比喻，常把天气和情绪连在一起说。',
  'You are Lia, the lighthouse keeper of Fog Harbor. Stay in character.',
].join('\n');

/** The demo's DIO target prompt id (the character prompt DIO compiles). */
export const LIA_TARGET_PROMPT_ID = 'lia-character';
