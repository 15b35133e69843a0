/** What the search worker is asked to do; plain data, since it crosses a thread boundary. */
export interface SearchScope {
  root: string;
  /** A folder (or, for text search, a single file) inside the root. */
  start: string;
  /** Paths inside this root are shown relative to it; others absolutely. */
  primaryRoot: string;
  includeIgnored: boolean;
  /** Globs (relative to the root) that are never read: denied secrets. */
  deny: string[];
  /** Where a previous page stopped: the first item it left out. */
  resume?: ResumePoint;
  budgetBytes: number;
}

export interface ResumePoint {
  path: string;
  /** For text search: the line of the match to resume at. */
  line?: number;
}

export interface TextSearchJob extends SearchScope {
  kind: 'text';
  pattern: string;
  regex: boolean;
  caseSensitive: boolean;
  /** Only files matching one of these; a glob without '/' matches the file name at any depth. */
  globs: string[];
  contextLines: number;
  maxFileBytes: number;
}

export interface FileSearchJob extends SearchScope {
  kind: 'files';
  patterns: string[];
  maxResults: number;
}

export type SearchJob = TextSearchJob | FileSearchJob;

export interface TextMatch {
  path: string;
  line: number;
  column: number;
  text: string;
  before?: string[];
  after?: string[];
}

export interface FileMatch {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
}

export interface SearchOutcome<Item> {
  items: Item[];
  /** False when the budget (or maxResults) stopped the search before the end. */
  exhausted: boolean;
  filesScanned: number;
  skippedLargeFiles: number;
  /** The first item left out, when the search stopped early. */
  next?: ResumePoint;
  /** The size of that item, when it alone is over the budget. */
  blockedBytes?: number;
}
