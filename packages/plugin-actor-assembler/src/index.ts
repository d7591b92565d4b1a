// Public API of @troupe/plugin-actor-assembler: the plugin, `assemble`, presets, the DIO slot
// rules, macros and the SillyTavern preset / character card importers. PNG chunk helpers (apps
// re-encode avatars with them); card schemas are internals.
export {
  actorAssemblerPlugin,
  ActorAssemblerOptionsSchema,
  ACTOR_ASSEMBLER_PLUGIN_NAME,
  ASSEMBLY_WARNINGS_EVENT,
  DIO_APPLIED_EVENT,
  DIO_DROPPED_EVENT,
  splitPreparedHistory,
  UNKNOWN_MACROS_EVENT,
} from './plugin.js';
export type { ActorAssemblerOptions } from './plugin.js';
export { actorProfileKey } from './actor-profile.js';
export type { ActorProfile } from './actor-profile.js';
export { assemble } from './assemble.js';
export { CONTEXT_TRIMMED_EVENT, fitHistoryToBudget, selectWithinBudget } from './budget/index.js';
export type { ContextTrimmedData, HistoryFit } from './budget/index.js';
export type { AssembleInput, AssembleResult } from './assemble.js';
export type { GenerationType } from './st-prompt-rules.js';
export { placeInjections, MAX_INJECTION_DEPTH } from './injections.js';
export type { ChatInjection } from './injections.js';
export { applyRegexScripts } from './regex/apply-scripts.js';
export type { RegexPassOptions, RegexTarget } from './regex/apply-scripts.js';
export { readRegexScripts, RegexScriptSchema } from './regex/regex-script.js';
export type { RegexPlacement, RegexScript } from './regex/regex-script.js';
export { PresetSettingsSchema } from './preset-settings.js';
export type { NamesBehavior, PresetSettings } from './preset-settings.js';
export { memoryGlobalVariableStore } from './global-variables.js';
export type { GlobalVariableStore } from './global-variables.js';
export {
  applyDioCompiledPrompt,
  assertDioSlotNotOverridden,
  locateDioSlot,
  DIO_PLACEHOLDER,
  DIO_VARIABLE,
  ROLEPLAY_PROMPT_NAME,
  SYSTEM_PROMPT_PLACEHOLDER,
} from './dio-slot.js';
export type { DioSlot, DioSlotResult } from './dio-slot.js';
export { validatePreset } from './validate-preset.js';
export { describeCharacterText, findCharacterText } from './dio-prepare/character-text.js';
export type { CharacterTextFinding, CharacterTextKind, FindCharacterTextOptions } from './dio-prepare/character-text.js';
export { prepareForDio } from './dio-prepare/prepare-for-dio.js';
export type { AbsorbedPrompt, DioAbsorbOption, DioPreparation, DioPreparationReport, PrepareForDioOptions } from './dio-prepare/prepare-for-dio.js';
export { DEFAULT_PERSONALITY_FORMAT, DEFAULT_SCENARIO_FORMAT, renderCharacterDefinition } from './dio-prepare/character-definition.js';
export type { CharacterDefinitionOptions } from './dio-prepare/character-definition.js';
export type { PresetIssue, PresetReport, ValidatePresetOptions } from './validate-preset.js';
export { defaultPreset, parsePreset, PresetSchema, presetRuleIssues, PromptEntrySchema, setPromptEnabled } from './preset.js';
export type { Preset, PromptEntry, PromptMarker, PromptRole } from './preset.js';
export { expandMacros, findMacros, isGetvar, SLOT_VARIABLES, supportedMacroNames } from './macros.js';
export type { MacroChatMessage, MacroEnvironment, MacroFields, MacroMatch } from './macros.js';
export { DEFAULT_STORY_DRAFT_INSTRUCTION, STORY_DRAFT_VARIABLE, readsStoryDraft, storyDraftMessage } from './story-draft.js';
export type { StoryDraftPlacement } from './story-draft.js';
export { AUTHORS_NOTE_DEPTH, WORLD_INFO_AFTER_VARIABLE, WORLD_INFO_BEFORE_VARIABLE } from './world-info-placement.js';
export type { WorldInfoPlacementReport } from './world-info-placement.js';
export { AssemblerError } from './errors.js';
export type { AssemblerErrorCode } from './errors.js';
export { importSillyTavernPreset, MAX_PRESET_JSON_BYTES } from './importers/sillytavern-preset.js';
export type { SillyTavernPresetImport, SillyTavernPresetImportOptions } from './importers/sillytavern-preset.js';
export {
  CARD_POST_HISTORY_ID,
  CARD_SYSTEM_PROMPT_ID,
  characterMacroFields,
  embedCharacterCard,
  importCharacterCard,
  MAX_CARD_JSON_BYTES,
} from './importers/character-card.js';
export type { CharacterCardImport, CharacterCardImportOptions, ImportedCharacter } from './importers/character-card.js';
export { importCharacterCardFile } from './importers/card-file.js';
export { applyCardLeniency, isV1Card } from './importers/card-leniency.js';
export type { LenientCard } from './importers/card-leniency.js';
export { isZip, readCharx } from './importers/charx.js';
export type { CharxContents, CharxLimits } from './importers/charx.js';
export { toCardV3 } from './importers/card-v3.js';
export type { CardFileOptions } from './importers/card-file.js';
export type { CardV2, CardV3 } from './importers/card-schema.js';
export { crc32, encodePng, isPng, PNG_SIGNATURE, readPngChunks, readPngTextChunks, setPngTextChunks } from './importers/png.js';
export type { PngChunk, PngLimits } from './importers/png.js';
