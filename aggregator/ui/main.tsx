import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, type Me } from './api';
import { ApprovalsPage } from './pages/approvals';
import { AuditPage } from './pages/audit';
import { ServersPage } from './pages/servers';
import { SessionsPage } from './pages/sessions';
import { ToolsPage } from './pages/tools';
import './app.css';

const PAGES = [
  { path: 'servers', title: 'Servers', Page: ServersPage },
  { path: 'tools', title: 'Tools', Page: ToolsPage },
  { path: 'approvals', title: 'Approvals', Page: ApprovalsPage },
  { path: 'audit', title: 'Audit', Page: AuditPage },
  { path: 'sessions', title: 'Sessions', Page: SessionsPage },
] as const;

type PagePath = (typeof PAGES)[number]['path'];

function pageOf(pathname: string): PagePath {
  const name = pathname.replace(/^\/ui\/?/, '');
  return PAGES.find((page) => page.path === name)?.path ?? 'servers';
}

function App() {
  const [me, setMe] = useState<Me>();
  const [path, setPath] = useState(pageOf(window.location.pathname));
  useEffect(() => {
    void getJson<Me>('/me').then(setMe);
    const back = () => setPath(pageOf(window.location.pathname));
    window.addEventListener('popstate', back);
    return () => window.removeEventListener('popstate', back);
  }, []);
  const page = PAGES.find((candidate) => candidate.path === path) ?? PAGES[0];
  useEffect(() => {
    document.title = `${page.title} · toolmesh`;
  }, [page]);
  const go = (event: MouseEvent, to: PagePath) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    window.history.pushState(null, '', `/ui/${to}`);
    setPath(to);
    document.getElementById('main')?.focus();
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="container">
        <nav aria-label="Dashboard">
          <ul>
            <li>
              <strong class="brand">toolmesh</strong>
            </li>
          </ul>
          <ul>
            {PAGES.map((candidate) => (
              <li key={candidate.path}>
                <a
                  href={`/ui/${candidate.path}`}
                  aria-current={candidate.path === path ? 'page' : undefined}
                  onClick={(event) => go(event, candidate.path)}
                >
                  {candidate.title}
                </a>
              </li>
            ))}
          </ul>
          <ul>
            <li class="who">
              {me ? (
                <span>
                  {me.identity}
                  <small class="role-note">{me.approver ? ' · approver' : ' · viewer'}</small>
                </span>
              ) : null}
            </li>
            <li>
              <form method="post" action="/ui/logout" class="inline">
                <button type="submit" class="secondary outline compact">
                  Sign out
                </button>
              </form>
            </li>
          </ul>
        </nav>
      </header>
      <main class="container" id="main" tabIndex={-1}>
        {me ? <page.Page me={me} /> : <p aria-busy="true">Loading…</p>}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
