import { useEffect, useState } from 'preact/hooks';
import type { Middleware } from 'openapi-fetch';
import { api, ok, type Me } from '../api/client';

/**
 * The team the reader narrows the pages to (none: all of theirs), kept for the tab. The API
 * answers only the caller's teams anyway; this narrows its lists to one, by adding `team` to the
 * list requests that take it (TEAM_LISTS) and say none.
 */
const KEY = 'orbit.team';

/** The list endpoints that take `team` (the dashboard's team test opens each of their pages with a team chosen). */
export const TEAM_LISTS = [
  '/jobs',
  '/executions',
  '/overview',
  '/overview/activity',
  '/channels',
  '/concurrency-groups',
  '/audit',
] as const;

let chosen: string | null = sessionStorage.getItem(KEY);

export function chosenTeam(): string | null {
  return chosen;
}

function choose(team: string | null): void {
  chosen = team;
  if (team) sessionStorage.setItem(KEY, team);
  else sessionStorage.removeItem(KEY);
}

const narrowToTeam: Middleware = {
  onRequest({ request }) {
    if (!chosen || request.method !== 'GET') return request;
    const url = new URL(request.url);
    if (!(TEAM_LISTS as readonly string[]).includes(url.pathname) || url.searchParams.has('team')) return request;
    url.searchParams.set('team', chosen);
    return new Request(url, request);
  },
};
api.use(narrowToTeam);

/** Whether the caller sees every team (an Orbit admin, an organisation-wide token): their choices are all teams. */
const seesEveryTeam = (me: Me) => me.admin || (me.kind === 'token' && me.teams.length === 0);

/**
 * The header's team filter: shown to a reader with more than one team to choose from. `onChange`
 * hears the new choice (the page is drawn again for it).
 */
export function TeamFilter({ me, onChange }: { me: Me; onChange: (team: string | null) => void }) {
  const [teams, setTeams] = useState<string[]>(seesEveryTeam(me) ? [] : me.teams.map((team) => team.name));

  useEffect(() => {
    if (!seesEveryTeam(me)) return;
    ok(api.GET('/teams')).then(
      (answer) => setTeams(answer.items.map((team) => team.name)),
      () => setTeams([]),
    );
  }, [me]);

  useEffect(() => {
    // a team kept from another sign-in that is not among this reader's is dropped
    if (chosen && teams.length > 0 && !teams.includes(chosen)) {
      choose(null);
      onChange(null);
    }
  }, [teams]);

  if (teams.length < 2) return null;
  return (
    <label class="team-filter">
      Team
      <select
        value={chosen ?? ''}
        onChange={(event) => {
          const team = (event.target as HTMLSelectElement).value || null;
          choose(team);
          onChange(team);
        }}
      >
        <option value="">All my teams</option>
        {teams.map((team) => (
          <option key={team} value={team}>
            {team}
          </option>
        ))}
      </select>
    </label>
  );
}
