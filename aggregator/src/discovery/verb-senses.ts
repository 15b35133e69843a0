import { tokenize } from '@toolmesh/bm25';
import { synonymsOf } from './synonyms.js';

/**
 * What everyday verbs usually ask a tool to do, in the verbs tool names use. Only the verb
 * that leads a request is read this way: in verb position "open a ticket" creates one and
 * "drop a comment" posts one, while elsewhere "open" and "drop" keep their plain sense. A Map,
 * not an object: a request may lead with any word, `constructor` included.
 */
const SENSES: ReadonlyMap<string, string> = new Map([
  ['open', 'create read view show navigate launch'],
  ['file', 'create submit'],
  ['log', 'create record'],
  ['raise', 'create'],
  ['report', 'create'],
  ['lodge', 'create'],
  ['submit', 'create'],
  ['jot', 'create write note'],
  ['note', 'create write'],
  ['draft', 'create write'],
  ['compose', 'create write'],
  ['cut', 'create'],
  ['spin', 'create start'],
  ['set', 'update configure'],
  ['put', 'add update set'],
  ['drop', 'add post delete remove'],
  ['leave', 'add post'],
  ['bump', 'update increase'],
  ['tweak', 'update'],
  ['adjust', 'update'],
  ['change', 'update'],
  ['flip', 'update toggle'],
  ['toggle', 'update enable disable'],
  ['mark', 'update'],
  ['switch', 'update'],
  ['rename', 'update'],
  ['move', 'update transfer'],
  ['grab', 'get fetch read'],
  ['pull', 'get fetch read'],
  ['bring', 'get show'],
  ['load', 'get read'],
  ['see', 'get list view'],
  ['look', 'search find get'],
  ['dig', 'search find'],
  ['hunt', 'search find'],
  ['kill', 'stop delete terminate'],
  ['nuke', 'delete'],
  ['wipe', 'delete clear'],
  ['scrap', 'delete'],
  ['trash', 'delete'],
  ['toss', 'delete'],
  ['ditch', 'delete'],
  ['purge', 'delete'],
  ['clear', 'delete'],
  ['kick', 'start run trigger'],
  ['fire', 'start run trigger send'],
  ['boot', 'start'],
  ['tear', 'delete stop'],
  ['shut', 'stop close'],
  ['ping', 'send message notify'],
  ['message', 'send'],
  ['tell', 'send message'],
  ['notify', 'send'],
  ['shoot', 'send'],
  ['hit', 'press click'],
  ['tap', 'press click'],
  ['type', 'fill press'],
  ['capture', 'take create record screenshot'],
  ['snap', 'take screenshot'],
  ['take', 'create get'],
  ['hold', 'wait'],
  ['hang', 'wait'],
  ['check', 'get verify status'],
  ['confirm', 'verify'],
  ['ship', 'deploy release'],
  ['push', 'deploy push'],
  ['roll', 'deploy revert'],
  ['undo', 'revert'],
  ['promote', 'deploy release'],
  ['save', 'create write'],
  ['make', 'create'],
  ['start', 'create'],
]);

/** Words that may stand before the verb of a request without changing it. */
const LEAD_IN =
  /^\s*(?:(?:please|pls|kindly|just|now|then|also|quickly|go ahead and|can you|could you|would you|will you|i need to|i want to|i'd like to|we need to|let's|lets|help me|try to|and)\s*,?\s*)+/i;

/**
 * How a request's terms are expanded: by their synonyms, and the verb the request leads
 * with also by the senses it has there and by their synonyms.
 */
export function termExpansions(request: string): (term: string) => readonly string[] {
  const first = /^[a-z]+/i.exec(request.replace(LEAD_IN, ''))?.[0]?.toLowerCase();
  const senses = first === undefined ? undefined : SENSES.get(first)?.split(' ');
  const verb = senses && tokenize(first!)[0];
  if (!senses || verb === undefined) return synonymsOf;
  const expansions = [
    ...new Set([
      ...synonymsOf(verb),
      ...senses,
      ...senses.flatMap((sense) => tokenize(sense).flatMap((term) => synonymsOf(term))),
    ]),
  ];
  return (term) => (term === verb ? expansions : synonymsOf(term));
}
