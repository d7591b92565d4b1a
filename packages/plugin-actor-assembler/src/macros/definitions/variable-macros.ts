import { AssemblerError } from '../../errors.js';
import { type MacroCall, type MacroTable, macro } from '../definition.js';
import { SLOT_VARIABLES } from '../environment.js';
import { addVariable, stepVariable } from '../variables.js';

/**
 * Checks a write to a local variable: slot variables are bound only by the slot rules.
 * @param call - the macro call
 * @param name - variable name
 * @throws {AssemblerError} MACRO_RESERVED_VARIABLE
 */
export function assertWritable(call: Pick<MacroCall, 'env' | 'name'>, name: string): void {
  if (SLOT_VARIABLES.has(name) && call.env.allowSlotWrites !== true) {
    throw new AssemblerError('MACRO_RESERVED_VARIABLE', `{{${call.name}::${name}}} may not write a slot variable; only the slot rules bind it`, { details: { variable: name } });
  }
}

/**
 * Reads a local variable; an unset slot variable is an error, an unset ordinary one is ''.
 * @param store - local variables
 * @param name - variable name
 * @returns the value
 * @throws {AssemblerError} MACRO_SLOT_VARIABLE_UNSET
 */
export function readLocal(store: Map<string, string>, name: string): string {
  const value = store.get(name);
  if (value !== undefined) return value;
  if (SLOT_VARIABLES.has(name)) throw new AssemblerError('MACRO_SLOT_VARIABLE_UNSET', `{{getvar::${name}}} is a slot variable but nothing bound it this turn`, { details: { variable: name } });
  return '';
}

const local = (call: MacroCall) => call.env.variables;
const global = (call: MacroCall) => call.globals;
const nameOf = (call: MacroCall) => call.args[0] ?? '';

/** Local (`…var`) and global (`…globalvar`) variable macros. */
export const VARIABLE_MACROS: MacroTable = {
  getvar: macro(1, 1, (call) => readLocal(local(call), nameOf(call))),
  setvar: macro(2, 2, (call) => {
    assertWritable(call, nameOf(call));
    local(call).set(nameOf(call), call.args[1] ?? '');
    return '';
  }),
  addvar: macro(2, 2, (call) => {
    assertWritable(call, nameOf(call));
    addVariable(local(call), nameOf(call), call.args[1] ?? '');
    return '';
  }),
  incvar: macro(1, 1, (call) => {
    assertWritable(call, nameOf(call));
    return stepVariable(local(call), nameOf(call), 1);
  }),
  decvar: macro(1, 1, (call) => {
    assertWritable(call, nameOf(call));
    return stepVariable(local(call), nameOf(call), -1);
  }),
  hasvar: macro(1, 1, (call) => String(local(call).has(nameOf(call)))),
  varexists: macro(1, 1, (call) => String(local(call).has(nameOf(call)))),
  deletevar: macro(1, 1, (call) => {
    assertWritable(call, nameOf(call));
    local(call).delete(nameOf(call));
    return '';
  }),
  flushvar: macro(1, 1, (call) => {
    assertWritable(call, nameOf(call));
    local(call).delete(nameOf(call));
    return '';
  }),
  getglobalvar: macro(1, 1, (call) => global(call).get(nameOf(call)) ?? ''),
  setglobalvar: macro(2, 2, (call) => {
    global(call).set(nameOf(call), call.args[1] ?? '');
    return '';
  }),
  addglobalvar: macro(2, 2, (call) => {
    addVariable(global(call), nameOf(call), call.args[1] ?? '');
    return '';
  }),
  incglobalvar: macro(1, 1, (call) => stepVariable(global(call), nameOf(call), 1)),
  decglobalvar: macro(1, 1, (call) => stepVariable(global(call), nameOf(call), -1)),
  hasglobalvar: macro(1, 1, (call) => String(global(call).has(nameOf(call)))),
  globalvarexists: macro(1, 1, (call) => String(global(call).has(nameOf(call)))),
  deleteglobalvar: macro(1, 1, (call) => {
    global(call).delete(nameOf(call));
    return '';
  }),
  flushglobalvar: macro(1, 1, (call) => {
    global(call).delete(nameOf(call));
    return '';
  }),
};
