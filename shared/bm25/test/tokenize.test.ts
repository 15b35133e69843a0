import { describe, expect, it } from 'vitest';
import { identifierWords, tokenize } from '../src/index.js';

describe('identifierWords', () => {
  it('splits on separators and on case and digit boundaries, keeping acronyms whole', () => {
    expect(identifierWords('getPullRequest')).toEqual(['get', 'Pull', 'Request']);
    expect(identifierWords('HTTPServer')).toEqual(['HTTP', 'Server']);
    expect(identifierWords('list_pull-requests')).toEqual(['list', 'pull', 'requests']);
    expect(identifierWords('listPDFs')).toEqual(['list', 'PDFs']);
    expect(identifierWords('s3Bucket2')).toEqual(['s', '3', 'Bucket', '2']);
  });
});

describe('tokenize', () => {
  it('lowercases, splits identifiers and keeps the joined identifier', () => {
    expect(tokenize('getPullRequest')).toEqual(['get', 'pull', 'request', 'getpullrequest']);
    expect(tokenize('HTTPServer')).toEqual(['http', 'server', 'httpserver']);
    expect(tokenize('github__create_issue')).toEqual(['github', 'creat', 'issu', 'githubcreateissu']);
  });

  it('splits prose on anything that is not a letter or digit', () => {
    expect(tokenize('Files, folders & "paths" (v2.1)!')).toEqual(['fil', 'folder', 'path', '2', 'v2', '1']);
  });

  it('drops stopwords and single letters but keeps digits', () => {
    expect(tokenize('What is in the box of a 5 x 5 grid?')).toEqual(['box', '5', '5', 'grid']);
  });

  it('stems so that inflections and nominalisations meet', () => {
    const [created, creating, creation, create] = ['created', 'creating', 'creation', 'create'].map(tokenize);
    expect(created).toEqual(create);
    expect(creating).toEqual(create);
    expect(creation).toEqual(create);
    expect(tokenize('Issues')).toEqual(tokenize('issue'));
  });

  it('keeps product-style names whole in prose', () => {
    expect(tokenize('Open a GitHub issue in HubSpot')).toEqual(['open', 'github', 'issu', 'hubspot']);
  });

  it('handles letters beyond ASCII', () => {
    expect(tokenize('Größe ändern für Café-Menü')).toEqual([
      'größe',
      'ändern',
      'für',
      'café',
      'menü',
      'cafémenü',
    ]);
  });

  it('gives the same terms each time a chunk comes back, however it is cased or joined', () => {
    const text = 'getPullRequest get_pull_request GET-PULL-REQUEST GetPullRequest getpullrequest';
    const first = tokenize(text);
    for (let word = 0; word < 10_000; word++) tokenize(`filler${word.toString(36)}`);
    expect(tokenize(text)).toEqual(first);
    expect(first).toEqual([
      ...['get', 'pull', 'request', 'getpullrequest'],
      ...['get', 'pull', 'request', 'getpullrequest'],
      ...['get', 'pull', 'request', 'getpullrequest'],
      ...['get', 'pull', 'request', 'getpullrequest'],
      'getpullrequest',
    ]);
  });

  it('returns nothing for empty or punctuation-only text', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize(' -- ... __ ')).toEqual([]);
  });
});
