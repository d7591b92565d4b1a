import { constants } from 'node:fs';
import type { EntryStat, StorageFs } from '../src/index.js';

// An in-memory StorageFs with a pessimistic power-loss model (ALICE-style): file data survives a
// crash only if fsync'ed, and a directory entry (create, rename, unlink) only if the directory
// was fsync'ed afterwards. `crash()` returns the disk a power cut would leave.

interface FileNode {
  readonly kind: 'file';
  readonly ino: number;
  data: Buffer;
  durable: Buffer;
  version: number;
  mtimeMs: number;
}
interface DirNode {
  readonly kind: 'dir';
  readonly ino: number;
  entries: Map<string, Node>;
  durable: Map<string, Node>;
}
type Node = FileNode | DirNode;

const fail = (code: string, path: string): never => {
  throw Object.assign(new Error(`${code}: ${path}`), { code });
};

/** Thrown once the simulated power is cut. */
export class PowerCut extends Error {}

export class MemFs {
  #nextIno = 1;
  #nextFd = 100;
  readonly #fds = new Map<number, { node: FileNode; append: boolean }>();
  readonly root: DirNode;
  /** Mutating operations performed so far. */
  ops = 0;
  /** Cut the power when `ops` reaches this. */
  cutAt = Number.POSITIVE_INFINITY;

  constructor(root?: DirNode) {
    this.root = root ?? this.#dir();
  }

  #dir(): DirNode {
    return { kind: 'dir', ino: this.#nextIno++, entries: new Map(), durable: new Map() };
  }

  #mutate(): void {
    if (this.ops >= this.cutAt) throw new PowerCut('power cut');
    this.ops += 1;
  }

  #lookup(path: string): Node | undefined {
    let node: Node = this.root;
    for (const part of path.split('/').filter(Boolean)) {
      if (node.kind !== 'dir') return undefined;
      const next = node.entries.get(part);
      if (!next) return undefined;
      node = next;
    }
    return node;
  }

  #parent(path: string): { dir: DirNode; name: string } {
    const parts = path.split('/').filter(Boolean);
    const name = parts.pop() ?? fail('EINVAL', path);
    const dir = this.#lookup(parts.join('/'));
    if (!dir) return fail('ENOENT', path);
    if (dir.kind !== 'dir') return fail('ENOTDIR', path);
    return { dir, name };
  }

  /** Marks everything durable (a clean shutdown). */
  syncAll(node: Node = this.root): void {
    if (node.kind === 'file') node.durable = Buffer.from(node.data);
    else {
      node.durable = new Map(node.entries);
      for (const child of node.entries.values()) this.syncAll(child);
    }
  }

  /** The disk after a power cut: only fsync'ed data and fsync'ed directory entries remain. */
  crash(): MemFs {
    const copy = (node: Node): Node => {
      if (node.kind === 'file') return { ...node, data: Buffer.from(node.durable), durable: Buffer.from(node.durable) };
      const entries = new Map([...node.durable].map(([name, child]) => [name, copy(child)] as const));
      return { kind: 'dir', ino: node.ino, entries, durable: new Map(entries) };
    };
    const after = new MemFs(copy(this.root) as DirNode);
    after.#nextIno = this.#nextIno;
    return after;
  }

  /** The files of a folder (recursive), for assertions. */
  files(path: string): Record<string, string> {
    const out: Record<string, string> = {};
    const walk = (node: Node, prefix: string) => {
      if (node.kind === 'file') out[prefix] = node.data.toString('utf8');
      else for (const [name, child] of node.entries) walk(child, prefix ? `${prefix}/${name}` : name);
    };
    const node = this.#lookup(path);
    if (node) walk(node, '');
    return out;
  }

  readonly fs: StorageFs = {
    open: async (path, flags) => {
      const { dir, name } = this.#parent(path);
      let node = dir.entries.get(name);
      if (node && (flags & constants.O_EXCL) !== 0 && (flags & constants.O_CREAT) !== 0) fail('EEXIST', path);
      if (!node) {
        if ((flags & constants.O_CREAT) === 0) fail('ENOENT', path);
        this.#mutate();
        node = { kind: 'file', ino: this.#nextIno++, data: Buffer.alloc(0), durable: Buffer.alloc(0), version: 0, mtimeMs: Date.now() };
        dir.entries.set(name, node);
      }
      if (node.kind !== 'file') return fail('EISDIR', path);
      const fd = this.#nextFd++;
      this.#fds.set(fd, { node, append: (flags & constants.O_APPEND) !== 0 });
      return fd;
    },
    write: async (fd, buffer, offset, length, position) => {
      this.#mutate();
      const open = this.#fds.get(fd) ?? fail('EBADF', String(fd));
      const at = open.append || position === null ? open.node.data.length : position;
      const end = Math.max(open.node.data.length, at + length);
      const next = Buffer.alloc(end);
      open.node.data.copy(next);
      Buffer.from(buffer.buffer, buffer.byteOffset + offset, length).copy(next, at);
      open.node.data = next;
      open.node.version += 1;
      open.node.mtimeMs = Date.now();
      return length;
    },
    read: async (fd, buffer, offset, length, position) => {
      const open = this.#fds.get(fd) ?? fail('EBADF', String(fd));
      const chunk = open.node.data.subarray(position, position + length);
      Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength).set(chunk, offset);
      return chunk.length;
    },
    fsize: async (fd) => (this.#fds.get(fd) ?? fail('EBADF', String(fd))).node.data.length,
    fsync: async (fd) => {
      this.#mutate();
      const open = this.#fds.get(fd) ?? fail('EBADF', String(fd));
      open.node.durable = Buffer.from(open.node.data);
    },
    ftruncate: async (fd, length) => {
      this.#mutate();
      const open = this.#fds.get(fd) ?? fail('EBADF', String(fd));
      const next = Buffer.alloc(length);
      open.node.data.copy(next, 0, 0, Math.min(length, open.node.data.length));
      open.node.data = next;
      open.node.version += 1;
      open.node.mtimeMs = Date.now();
    },
    futimes: async (fd, timeMs) => {
      (this.#fds.get(fd) ?? fail('EBADF', String(fd))).node.mtimeMs = timeMs;
    },
    close: async (fd) => {
      this.#fds.delete(fd);
    },
    rename: async (from, to) => {
      const source = this.#parent(from);
      const node = source.dir.entries.get(source.name) ?? fail('ENOENT', from);
      const target = this.#parent(to);
      const existing = target.dir.entries.get(target.name);
      if (existing?.kind === 'dir' && (node.kind !== 'dir' || existing.entries.size > 0)) fail('ENOTEMPTY', to);
      this.#mutate();
      source.dir.entries.delete(source.name);
      target.dir.entries.set(target.name, node);
    },
    link: async (from, to) => {
      const source = this.#parent(from);
      const node = source.dir.entries.get(source.name) ?? fail('ENOENT', from);
      const target = this.#parent(to);
      if (target.dir.entries.has(target.name)) fail('EEXIST', to);
      this.#mutate();
      target.dir.entries.set(target.name, node);
    },
    unlink: async (path) => {
      const { dir, name } = this.#parent(path);
      const node = dir.entries.get(name) ?? fail('ENOENT', path);
      if (node.kind === 'dir') fail('EISDIR', path);
      this.#mutate();
      dir.entries.delete(name);
    },
    mkdir: async (path) => {
      const { dir, name } = this.#parent(path);
      if (dir.entries.has(name)) fail('EEXIST', path);
      this.#mutate();
      dir.entries.set(name, this.#dir());
    },
    removeTree: async (path) => {
      const parts = path.split('/').filter(Boolean);
      const name = parts.pop() ?? '';
      const dir = this.#lookup(parts.join('/'));
      if (dir?.kind !== 'dir' || !dir.entries.has(name)) return;
      this.#mutate();
      dir.entries.delete(name);
    },
    readdir: async (path) => {
      const node = this.#lookup(path) ?? fail('ENOENT', path);
      if (node.kind !== 'dir') return fail('ENOTDIR', path);
      return [...node.entries.keys()];
    },
    lstat: async (path): Promise<EntryStat | undefined> => {
      const node = this.#lookup(path);
      if (!node) return undefined;
      if (node.kind === 'dir') return { kind: 'directory', size: 0, signature: `${node.ino}:dir`, mtimeMs: 0 };
      return { kind: 'file', size: node.data.length, signature: `${node.ino}:${node.data.length}:${node.version}`, mtimeMs: node.mtimeMs };
    },
    fsyncDir: async (path) => {
      this.#mutate();
      const node = this.#lookup(path) ?? fail('ENOENT', path);
      if (node.kind === 'dir') node.durable = new Map(node.entries);
    },
  };
}
