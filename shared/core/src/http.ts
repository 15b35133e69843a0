// The HTTP front lives behind its own entry point, so that a server speaking stdio never loads
// express or the HTTP transports.
export {
  type Caller,
  callerOf,
  type HttpFront,
  type HttpFrontOptions,
  ListenError,
  LOOPBACK_HOSTS,
  type ResumedSession,
  type SessionFactory,
  SessionRefusal,
  type SessionServer,
  type SharedSessions,
  startHttpFront,
  type ToTheApp,
} from './http-front.js';
export { readWholeBody } from './read-whole-body.js';
