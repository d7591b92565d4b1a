/** Something a contract test creates fresh and cleans up afterwards. */
export interface CleanableFixture {
  readonly cleanup?: () => Promise<void>;
}

/**
 * Creates a fixture, runs `body` with it, and always cleans up.
 * @param make - creates a fresh fixture
 * @param body - the test body
 */
export async function withFixture<F extends CleanableFixture>(make: () => Promise<F>, body: (fixture: F) => Promise<void>): Promise<void> {
  const fixture = await make();
  try {
    await body(fixture);
  } finally {
    await fixture.cleanup?.();
  }
}

/**
 * The `code` a promise rejects with, or undefined when it resolves.
 * @param promise - the operation
 */
export async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}
