import type { AnyToolDefinition } from '@toolmesh/core';
import type { FeedReader } from '../feeds/reader.js';
import {
  getArticle,
  getUnreadDigest,
  listArticles,
  markArticlesRead,
  setArticleRead,
  setArticleSaved,
} from './articles.js';
import { addFeed, listFeeds, refreshFeeds, removeFeed, setFeedEnabled } from './feeds.js';
import { exportOpml, importOpml } from './opml.js';
import { searchArticles } from './search.js';

export const FEED_TOOLS: readonly AnyToolDefinition<FeedReader>[] = [
  listFeeds,
  listArticles,
  getArticle,
  setArticleRead,
  setArticleSaved,
  refreshFeeds,
  addFeed,
  removeFeed,
  setFeedEnabled,
  importOpml,
  exportOpml,
  searchArticles,
  getUnreadDigest,
  markArticlesRead,
];
