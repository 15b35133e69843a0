export { ACTION_CLASSES, type ActionClass, isActionClass, META_KEYS } from './actions.js';
export {
  type BudgetPage,
  budgetFields,
  cursorArg,
  DEFAULT_MAX_TOKENS,
  decodeCursor,
  decodePosition,
  encodeCursor,
  encodePosition,
  MAX_MAX_TOKENS,
  MIN_MAX_TOKENS,
  maxTokensArg,
  requestedPage,
  requestedWindowPage,
  requestKey,
  takeWithinBudget,
  utf8Bytes,
} from './budget.js';
export {
  ANONYMOUS_IDENTITY,
  type CallingScope,
  callingIdentity,
  pickWorkspace,
  scopedInput,
  WORKSPACE_ARGUMENT,
} from './calling-scope.js';
export { cacheDirectory, dataDirectory, serverDataFile } from './data-dir.js';
export {
  type AnyToolDefinition,
  annotationDisagreement,
  isRawResult,
  isToolReply,
  type RawResult,
  READ_ONLY_ANNOTATIONS,
  RECOVERABLE_WRITE_ANNOTATIONS,
  rawResult,
  type ToolContext,
  type ToolDefinition,
  type ToolReply,
  toolDefiner,
  withContent,
} from './define-tool.js';
export { shannonEntropy } from './entropy.js';
export { fetchWithOwnSignal } from './fetch-with-own-signal.js';
export {
  COMMON_FLAGS,
  type FlagSpec,
  helpText,
  parseServerFlags,
  type ServerFlags,
  type Transport,
  UsageError,
} from './flags.js';
export {
  CachedTermCounts,
  CHEAP_TO_RANK,
  type FullTextPlan,
  ftsPhrases,
  NEWEST_FIRST_NOTE,
  newestMatches,
  planFullText,
} from './full-text.js';
export { activitySeen, collectGarbage, releaseHeap } from './heap-release.js';
export {
  HOST_METHODS,
  type HostStartParams,
  hostMessageParams,
  hostNotice,
  hostOutputParams,
  hostServerParams,
} from './host-protocol.js';
export { embeddingsUrl, HttpEmbedder, type HttpEmbedderOptions, unitVector } from './http-embedder.js';
export { exchangeEnded, IdleServers, whileServing } from './idle-servers.js';
export {
  createLogger,
  isoTimestamp,
  LOG_LEVELS,
  type Logger,
  type LogLevel,
  type LogSink,
} from './logger.js';
export { serveToolCalls } from './modern-tool-calls.js';
export { missingOptionalPeers, requireOptionalPeers } from './optional-peers.js';
export { type PackageManifest, packageManifest, packageVersion } from './package-version.js';
export {
  DEFAULT_DENY,
  type DenyRules,
  denyMatcher,
  isInside,
  PathGuard,
  type PathIntent,
  PathRefusal,
  type ResolvedPath,
} from './path-guard.js';
export { isPlainToolCall, type PlainToolCall } from './plain-tool-call.js';
export { SECRET_FILE_GLOBS, secretFileKind } from './secret-files.js';
export {
  httpClientSnippets,
  type ProgramOutput,
  type RunningServer,
  runServerProgram,
  type ServerProgram,
  type ServerSetup,
  type StartedProgram,
  serve,
  startServerProgram,
} from './serve.js';
export { type Migration, openDatabase, type SqliteDatabase } from './sqlite.js';
export { checkLiteralHost, guardedLookup, NetworkRefusal, refusalReason } from './ssrf-guard.js';
export { optimizeFromNowOn } from './startup-tiering.js';
export { type Statement, statementCache } from './statement-cache.js';
export { DEFAULT_MAX_MESSAGE_BYTES, StdioLineTransport } from './stdio-line-transport.js';
export {
  legacyAnswer,
  modernAnswer,
  requestController,
  settledToolCall,
  type ToolCallHandler,
  type ToolCallOutcome,
} from './tool-call-answer.js';
export { renderToolReference } from './tool-docs.js';
export { errnoCode, errorMessage, ToolError } from './tool-error.js';
export { toolListEntry } from './tool-schema.js';
export {
  createToolServer,
  describeArgumentIssues,
  errorResult,
  runTool,
  type ToolCallContext,
  type ToolServer,
  type ToolServerOptions,
} from './tool-server.js';
export { frameUntrusted } from './untrusted.js';
export { type WorkspaceTable, WorkspaceTables } from './workspace-tables.js';
