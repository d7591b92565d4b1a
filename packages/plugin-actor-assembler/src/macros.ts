// The macro engine lives in ./macros/; this module is its stable import path inside the package.
export type { MacroChatMessage, MacroEnvironment, MacroFields } from './macros/environment.js';
export { SLOT_VARIABLES } from './macros/environment.js';
export { expandMacros } from './macros/expand.js';
export { findMacros, isGetvar } from './macros/find.js';
export type { MacroMatch } from './macros/find.js';
export { supportedMacroNames } from './macros/registry.js';
