// `@toolmesh/core/secrets`: finding secrets in text by their formats. An entry of its own, not in
// the index, because secretlint's rules are loaded with it, and only the servers that scan text
// for secrets (git's commit checks, the aggregator's audit) should carry them.
export { findSecrets, type SecretFinding } from './secret-formats.js';
