/** The loopback names every server answers to, whatever it is bound to. */
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', 'localhost', '[::1]'];

/** Wildcard binds: they name no host a browser would use. */
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/**
 * Whether a bind address is one of the loopback names.
 * @param host - the bind address (`::1` or `[::1]` for IPv6)
 */
export function isLoopbackBind(host: string): boolean {
  return LOOPBACK_HOSTS.includes(bracketed(host).toLowerCase());
}

/**
 * The Host names a server bound to `bindHost` answers to: the loopback names, the bind address
 * itself (unless it is a wildcard such as 0.0.0.0), and every `--allow-host` name. The check is on
 * for every bind: without it, a web page could reach the server through DNS rebinding.
 * @param bindHost - the address the server listens on
 * @param allowHosts - extra names (e.g. `mybox.lan`, `192.168.1.20`)
 * @returns lowercase names; IPv6 addresses in brackets
 */
export function allowedHostNames(bindHost: string, allowHosts: readonly string[] = []): string[] {
  const names = new Set(LOOPBACK_HOSTS);
  const bind = bracketed(bindHost).toLowerCase();
  if (!WILDCARDS.has(bind)) names.add(bind);
  for (const name of allowHosts) names.add(bracketed(name.trim()).toLowerCase());
  names.delete('');
  return [...names];
}

/**
 * The warning to print at start-up when the server is reachable beyond loopback but no
 * `--allow-host` names say under which names; undefined when none is needed.
 * @param bindHost - the bind address
 * @param allowHosts - the `--allow-host` names
 */
export function bindWarning(bindHost: string, allowHosts: readonly string[]): string | undefined {
  if (isLoopbackBind(bindHost) || allowHosts.length > 0) return undefined;
  const names = allowedHostNames(bindHost).join(', ');
  return (
    `Warning: listening on ${bindHost}, beyond loopback, and this app has no login: anyone who can reach this address can read and change your stories and chats. ` +
    `Only requests for ${names} are answered; name the others with --allow-host (e.g. --allow-host mybox.lan,192.168.1.20).`
  );
}

/**
 * Whether a request's Host header names an allowed host (the port is ignored).
 * @param header - the Host header
 * @param allowed - from {@link allowedHostNames}
 */
export function hostAllowed(header: string | undefined, allowed: readonly string[]): boolean {
  const host = (header ?? '').trim().toLowerCase();
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
  return name !== '' && allowed.includes(name);
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
