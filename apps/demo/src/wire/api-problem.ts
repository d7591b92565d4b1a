// A wire shape: a plain type with no imports, shared by the server and the browser UI. See ./README.md.

/** Every error answer of the web API: a stable `code` and a sentence for the player. */
export interface ApiProblem {
  readonly code: string;
  readonly message: string;
}
