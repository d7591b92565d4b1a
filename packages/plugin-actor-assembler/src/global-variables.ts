/**
 * Where a user's global macro variables (`{{setglobalvar}}`, `{{$name}}`) live between turns.
 * SillyTavern keeps them in the user's settings; an app backs this with its own storage (a file
 * per user, a database row). Implementations must treat `userId` as untrusted.
 */
export interface GlobalVariableStore {
  /**
   * Reads a user's global variables.
   * @param userId - the user (the turn's `userId`, or `default` when there is none)
   * @param signal - aborts the read
   * @returns the variables (empty when the user has none yet)
   */
  load(userId: string, signal: AbortSignal): Promise<Readonly<Record<string, string>>>;
  /**
   * Replaces a user's global variables.
   * @param userId - the user
   * @param variables - the complete new set
   * @param signal - aborts the write
   */
  save(userId: string, variables: Readonly<Record<string, string>>, signal: AbortSignal): Promise<void>;
}

/**
 * A {@link GlobalVariableStore} in memory (tests, single-process demos).
 * @returns a new, empty store
 */
export function memoryGlobalVariableStore(): GlobalVariableStore {
  const users = new Map<string, Readonly<Record<string, string>>>();
  return {
    load: async (userId) => ({ ...(users.get(userId) ?? {}) }),
    save: async (userId, variables) => {
      users.set(userId, { ...variables });
    },
  };
}
