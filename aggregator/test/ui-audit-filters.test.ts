import { describe, expect, it } from 'vitest';
import { auditFiltersOf } from '../src/ui/dashboard-api.js';

describe('the audit filters of the dashboard', () => {
  it('takes an empty field as no filter, and times as epoch milliseconds', () => {
    expect(
      auditFiltersOf({ tool: 'fs__*', since: '1000', until: '', outcome: 'ok', page: '2', mode: '  ' }),
    ).toEqual({
      tool: 'fs__*',
      since: 1000,
      outcome: 'ok',
      page: 2,
    });
  });

  it('refuses a malformed filter, naming it, rather than dropping it and matching everything', () => {
    for (const [query, field] of [
      [{ outcome: 'bogus' }, 'outcome'],
      [{ since: 'yesterday' }, 'since'],
      [{ until: '-5' }, 'until'],
      [{ tool: 'x'.repeat(201) }, 'tool'],
      [{ page: '-1' }, 'page'],
    ] as const)
      expect(() => auditFiltersOf(query)).toThrow(
        expect.objectContaining({ status: 400, message: expect.stringContaining(field) }),
      );
  });
});
