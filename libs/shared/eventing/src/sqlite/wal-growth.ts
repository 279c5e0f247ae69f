import type { SqliteDatabase } from '@cip/shared/runtime';
import { endianness } from 'node:os';
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';

/** Bytes before the first frame of a WAL file, and before each page in a frame (walformat.html). */
const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
/** Offset of `mxFrame` (the last valid frame, u32 in native byte order) in the wal-index header of the -shm. */
const SHM_MX_FRAME_OFFSET = 16;

/**
 * Grows a WAL file ahead of SQLite in chunks of zeros, as SQLite's own SQLITE_FCNTL_CHUNK_SIZE does for a
 * database file (it has none for the WAL, and better-sqlite3 exposes no file control). A commit that appends
 * frames past the end of the file changes its size and allocates blocks, so its fsync also commits the file
 * system's journal: on this ext4 disk a single serial writer appending ~10 KiB per commit reached about 4,600
 * commits/s, and about 6,100 with the frames landing in space already written (append-bench).
 *
 * Safe by construction: zeros are only ever written at or beyond the file's current end, never over a byte
 * SQLite wrote, and only inside a write transaction (`extend` is called with the write lock held), so no
 * other connection, in this process or another, appends frames meanwhile. SQLite ignores what follows the
 * last valid frame (the salts and checksums of zeros do not match; a restarted WAL leaves old frames there
 * too), and the commit's own fsync makes the zeros durable with its frames. Where SQLite's next frame goes
 * comes from the wal-index header (documented format); reading it wrong could only extend too often or
 * too late, never overwrite anything.
 *
 * The file's size is asked of the kernel (`fstat`) only when the end it last saw is near: SQLite only ever
 * appends to a WAL (nothing here truncates this file), so between two looks the end is at least the one
 * seen. An `fstat` of the WAL in every commit's transaction cost a lone writer a quarter of its commits
 * (measured 2026-11-28, SQLite alone on this disk: ~6,000 commits/s without it, ~4,300 with it). The call
 * itself returned in ~2 us; it is the commit's fsync after it that took 35-60 us longer, which an `fstat`
 * of the database file or of the -shm did not do (docs/STACK-NOTES.md, "An fstat of the WAL per commit").
 */
export class WalGrowth {
  private wal?: number;
  private shm?: number;
  private readonly header = Buffer.alloc(SHM_MX_FRAME_OFFSET + 4);
  private readonly frameBytes: number;
  private readonly zeros: Buffer;
  /** The file's end when last looked at (or grown here): the real end is never before it. */
  private knownEnd = 0;

  constructor(
    private readonly path: string,
    pageSize: number,
    private readonly chunkBytes = 1 << 20,
  ) {
    this.frameBytes = FRAME_HEADER_BYTES + pageSize;
    this.zeros = Buffer.alloc(chunkBytes);
  }

  /** For a database file in WAL mode; undefined for an in-memory database (no WAL file). */
  static of(db: SqliteDatabase): WalGrowth | undefined {
    if (db.memory || db.pragma('journal_mode', { simple: true }) !== 'wal') return undefined;
    return new WalGrowth(db.name, db.pragma('page_size', { simple: true }) as number);
  }

  /** Call inside a write transaction, before its pages are written: adds a chunk when less than half is left. */
  extend(): void {
    // Opened on first use: SQLite creates the files with the first transaction and never replaces them while
    // a connection is open (this store's stays open as long as the store).
    this.wal ??= openSync(`${this.path}-wal`, 'r+');
    this.shm ??= openSync(`${this.path}-shm`, 'r');
    readSync(this.shm, this.header, 0, this.header.length, 0);
    const mxFrame =
      endianness() === 'LE'
        ? this.header.readUInt32LE(SHM_MX_FRAME_OFFSET)
        : this.header.readUInt32BE(SHM_MX_FRAME_OFFSET);
    const framesEnd = WAL_HEADER_BYTES + mxFrame * this.frameBytes;
    if (this.knownEnd - framesEnd >= this.chunkBytes / 2) return;
    const size = fstatSync(this.wal).size;
    this.knownEnd = size;
    if (size - framesEnd >= this.chunkBytes / 2) return;
    writeSync(this.wal, this.zeros, 0, this.chunkBytes, size);
    this.knownEnd = size + this.chunkBytes;
  }

  close(): void {
    if (this.wal !== undefined) closeSync(this.wal);
    if (this.shm !== undefined) closeSync(this.shm);
    this.wal = this.shm = undefined;
    this.knownEnd = 0;
  }
}
