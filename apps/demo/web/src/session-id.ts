const KEY = 'troupe-demo-session';

/** A fresh session id: `web-` and random lower-case letters and digits (valid for the session log). */
export function newSessionId(): string {
  const random = crypto.getRandomValues(new Uint32Array(2));
  return `web-${Array.from(random, (n) => n.toString(36)).join('')}`;
}

/** The session this tab plays: `#session=…` in the URL, else the last one used, else a new one. */
export function initialSessionId(): string {
  const fromHash = /(?:^|[#&])session=([a-z0-9][a-z0-9_-]{0,63})/.exec(location.hash)?.[1];
  return fromHash ?? localStorage.getItem(KEY) ?? newSessionId();
}

/** Remembers the session in the URL and for the next visit. */
export function rememberSessionId(id: string): void {
  localStorage.setItem(KEY, id);
  history.replaceState(null, '', `#session=${id}`);
}
