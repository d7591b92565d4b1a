/** A heading-delimited piece of a Markdown source. */
export interface MarkdownChunk {
  /** Heading trail, e.g. `Guild > Debts` ('' before the first heading). */
  readonly heading: string;
  readonly text: string;
  /** 1-based line where the chunk starts. */
  readonly line: number;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const ATX = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const SETEXT = /^\s{0,3}(=+|-+)\s*$/;

/**
 * Splits Markdown into heading sections, then into pieces of at most `maxChars` on paragraph
 * boundaries. Fenced code is never read as headings; ATX and setext headings are recognised.
 * @param markdown - the source text
 * @param maxChars - longest chunk (a single longer paragraph is hard-split)
 */
export function chunkMarkdown(markdown: string, maxChars: number): MarkdownChunk[] {
  const lines = markdown.split(/\r?\n/);
  const chunks: MarkdownChunk[] = [];
  const trail: string[] = [];
  let body: string[] = [];
  let bodyStart = 1;
  let fence: string | undefined;
  const flush = () => {
    pushPieces(chunks, trail.filter(Boolean).join(' > '), body, bodyStart, maxChars);
    body = [];
  };
  const setHeading = (level: number, title: string, lineNo: number) => {
    flush();
    trail.length = level;
    trail[level - 1] = title;
    bodyStart = lineNo + 1;
  };
  for (const [index, line] of lines.entries()) {
    const fenceMatch = FENCE.exec(line);
    if (fence) {
      if (fenceMatch?.[1]?.startsWith(fence)) fence = undefined;
      body.push(line);
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1]?.slice(0, 3);
      body.push(line);
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      setHeading(atx[1]?.length ?? 1, atx[2] ?? '', index + 1);
      continue;
    }
    const previous = body[body.length - 1];
    const setext = SETEXT.exec(line);
    if (setext && previous !== undefined && previous.trim() !== '') {
      body.pop();
      setHeading(setext[1]?.startsWith('=') ? 1 : 2, previous.trim(), index + 1);
      continue;
    }
    body.push(line);
  }
  flush();
  return chunks;
}

function pushPieces(chunks: MarkdownChunk[], heading: string, body: string[], start: number, maxChars: number): void {
  let piece: string[] = [];
  let pieceStart = start;
  let size = 0;
  const emit = () => {
    const text = piece.join('\n').trim();
    if (text) chunks.push({ heading, text, line: pieceStart });
    piece = [];
    size = 0;
  };
  body.forEach((line, offset) => {
    if (size + line.length + 1 > maxChars && piece.length > 0 && (line.trim() === '' || size > maxChars)) emit();
    if (piece.length === 0) pieceStart = start + offset;
    for (let at = 0; at < line.length; at += maxChars) {
      const part = line.slice(at, at + maxChars);
      if (size + part.length > maxChars && piece.length > 0) emit();
      if (piece.length === 0) pieceStart = start + offset;
      piece.push(part);
      size += part.length + 1;
    }
    if (line.length === 0) {
      piece.push('');
      size += 1;
    }
  });
  emit();
}
