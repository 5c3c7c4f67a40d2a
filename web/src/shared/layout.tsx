import type { ComponentChildren } from 'preact';
import { useSession } from '../auth/session';
import { administersTeams } from '../auth/teams';
import { managesTokens } from '../auth/tokens';
import { DisplaySettings } from './display-settings';
import { useState } from 'preact/hooks';
import { Link, useLocation } from './router';
import { chosenTeam, TeamFilter } from './team-filter';
import { ZoneContext } from './time';

function section(path: string): string {
  return path === '/' ? '/' : `/${path.split('/')[1]}`;
}

/** Every signed-in page: the side navigation (a header on a phone), the display's switches, who is signed in, the page. */
export function Layout({ children }: { children: ComponentChildren }) {
  const session = useSession();
  const { path, query } = useLocation();
  const utc = query.get('tz') === 'UTC';
  const [team, setTeam] = useState(chosenTeam());
  const links: Array<[string, string]> = [
    ['/', 'Overview'],
    ['/jobs', 'Jobs'],
    ['/workers', 'Workers'],
    ...(session.can('admin')
      ? ([
          ['/tokens', 'Tokens'],
          ['/audit', 'Audit'],
          ['/channels', 'Channels'],
          ['/concurrency-groups', 'Concurrency groups'],
        ] as Array<[string, string]>)
      : managesTokens(session)
        ? ([['/tokens', 'Tokens']] as Array<[string, string]>)
        : []),
    ...(administersTeams(session.me) ? ([['/teams', 'Teams']] as Array<[string, string]>) : []),
  ];
  return (
    <ZoneContext.Provider value={utc ? 'UTC' : 'local'}>
      <div class="shell">
        <a class="skip" href="#main">
          Skip to the page
        </a>
        <header class="sidebar">
          <div class="sidebar-content">
            <span class="brand">Orbit</span>
            <nav aria-label="Main">
              <ul>
                {links.map(([href, label]) => (
                  <li key={href}>
                    <Link href={href} aria-current={section(path) === href ? 'page' : undefined}>
                      {label}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
            <TeamFilter me={session.me} onChange={setTeam} />
            <DisplaySettings utc={utc} />
            <div class="who">
              <span>
                {session.me.name} ({session.me.role ?? 'no role'})
              </span>
              <button type="button" class="quiet" onClick={session.signOut}>
                Sign out
              </button>
            </div>
          </div>
        </header>
        {/* a page is drawn again for another team, so what it read is read again */}
        <main id="main" key={team ?? ''}>
          {children}
        </main>
      </div>
    </ZoneContext.Provider>
  );
}
