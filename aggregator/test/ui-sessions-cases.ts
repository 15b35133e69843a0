// The Sessions page's cases, run by ui-dashboard.test.ts on each store it serves toolmesh on.
import { connectModernHttpClient, MODERN_REVISION } from '@toolmesh/core/testing';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, type Browsers, openPage, signInWithForm } from './dashboard-browser.js';
import type { ServedToolmesh } from './harness.js';

export interface DashboardUnderTest {
  serving: ServedToolmesh;
  base: string;
  browsers: Browsers;
  reviewerToken: string;
  createToken(name: string, approver: boolean): Promise<string>;
  screenshot(page: Page, name: string): Promise<unknown> | undefined;
}

/** Opens a 2025 session by hand, asking for `revision` (older than the SDK client's); resolves to its id. */
export async function openLegacySession(url: string, token: string, revision: string): Promise<string> {
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const opened = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: revision,
        capabilities: {},
        clientInfo: { name: 'old-client', version: '1.0' },
      },
    }),
  });
  expect(opened.status).toBe(200);
  expect(await opened.text()).toContain(`"protocolVersion":"${revision}"`);
  const id = opened.headers.get('mcp-session-id') as string;
  const initialized = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': revision },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return id;
}

export function sessionsCases(under: () => DashboardUnderTest): void {
  describe('the Sessions page', () => {
    it('shows the revision each 2025 session agreed on, and 2026-07-28 clients by token in the mode they switched to, never as sessions', async () => {
      const { serving, base, browsers, reviewerToken, createToken, screenshot } = under();
      const url = await serving.url;
      const legacyId = await openLegacySession(url, await serving.token, '2025-06-18');
      const modern = await connectModernHttpClient(`${url}/plan`, {
        token: await createToken('modern-agent', false),
      });
      try {
        expect((await modern.listTools()).tools.map((tool) => tool.name)).toContain('exit_plan_mode');
        expect((await modern.call('fixture__count_slowly', { n: 1 })).isError).toBe(true);
        const page = await signInWithForm(await browsers.open(), base, reviewerToken);
        await openPage(page, 'Approvals');
        await page.getByText('Nothing waits for approval.').waitFor();
        // No session and no elicitation: the approver in the page decides, and the switch is
        // kept in the state as a record bound to the token on /mcp/plan.
        const leaving = modern.call('exit_plan_mode', { plan: 'write the files' });
        const card = page.locator('article.approval', { hasText: 'exit_plan_mode' });
        await card.getByRole('button', { name: 'Approve' }).click();
        const left = await leaving;
        expect(left.isError).toBeFalsy();
        expect(left.structuredContent).toEqual({ mode: 'chat', changed: true });
        // Its next call runs in the mode it switched to: what plan denies (a work-tree write) runs.
        const writes = await modern.call('fixture__count_slowly', { n: 1 });
        expect(writes.isError).toBeFalsy();

        await openPage(page, 'Sessions');
        // Told apart from the other tests' sessions by the client it named at initialize.
        const legacy = page.locator('table.sessions tbody tr', { hasText: 'old-client 1.0' });
        await legacy.waitFor();
        await expect(legacy.locator('td.revision').textContent()).resolves.toBe('2025-06-18');
        const stateless = page.locator('table.modern-clients tr[data-identity="modern-agent"]');
        await stateless.waitFor();
        expect(await stateless.count()).toBe(1);
        await expect(stateless.locator('td.revision').textContent()).resolves.toBe(MODERN_REVISION);
        await expect(stateless.locator('td.mode').textContent()).resolves.toBe('chat');
        expect(await page.locator('table.sessions tbody tr', { hasText: 'modern-agent' }).count()).toBe(0);
        const listed = await page.evaluate(
          async () =>
            (await (await fetch('/ui/api/sessions')).json()) as {
              sessions: { id: string; identity: string }[];
            },
        );
        expect(listed.sessions.filter((session) => session.identity === 'modern-agent')).toEqual([]);
        expect(listed.sessions.filter((session) => session.id.startsWith('principal:'))).toEqual([]);

        expect(await axeViolations(page)).toEqual([]);
        await screenshot(page, 'sessions');
      } finally {
        await modern.close();
        await fetch(url, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${await serving.token}`, 'mcp-session-id': legacyId },
        });
      }
    });
  });
}
