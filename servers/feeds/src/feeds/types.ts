/** A subscribed feed as the tools show it; times are ISO 8601. */
export interface Feed {
  id: number;
  url: string;
  title: string;
  siteUrl: string | null;
  enabled: boolean;
  intervalMinutes: number;
  lastFetchedAt: string | null;
  lastSuccessAt: string | null;
  /** When the schedule (or a backoff) next allows fetching it. */
  nextFetchAt: string | null;
  errorCount: number;
  lastError: string | null;
  articles: number;
  unread: number;
}

export interface ArticleSummary {
  id: number;
  feedId: number;
  feedTitle: string;
  title: string;
  link: string | null;
  author: string | null;
  publishedAt: string | null;
  read: boolean;
  saved: boolean;
  excerpt: string;
}

export interface Article extends ArticleSummary {
  guid: string | null;
  updatedAt: string | null;
  firstSeenAt: string;
  /** The article as markdown, reduced from its HTML. */
  content: string;
}

export interface ArticleFilter {
  feedId?: number;
  unread?: boolean;
  saved?: boolean;
  /** Only articles published (or first seen) at or after this time (ms). */
  since?: number;
}

/** What one fetch did to a feed's articles. */
export interface IngestCounts {
  new: number;
  updated: number;
}

/** The validators and facts a successful fetch leaves on a feed. */
export interface FetchSuccess {
  etag: string | null;
  lastModified: string | null;
  title: string;
  siteUrl: string | null;
  ttlMinutes: number | null;
}
