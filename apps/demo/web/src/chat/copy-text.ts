/**
 * Copies text to the clipboard: the async Clipboard API where the page may use it, else the
 * older `execCommand('copy')` on a hidden text area (plain-http pages on another host are not a
 * secure context and have no `navigator.clipboard`).
 * @param text - what to copy
 * @returns true when the browser reports the copy done
 */
export async function copyText(text: string): Promise<boolean> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Permission refused or no user activation: fall through to the older way.
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  try {
    return document.execCommand('copy');
  } finally {
    area.remove();
  }
}
