import type { ComponentChildren } from 'preact';
import { useLocation, type Location } from './shared/router';
import { SessionGate, useSession, type Session } from './auth/session';
import { Refused } from './auth/refused';
import type { Role } from './api/client';
import { AuditPage } from './audit/audit';
import { ChannelsPage } from './channels/channels';
import { ConcurrencyGroupsPage } from './concurrency-groups/concurrency-groups';
import { ExecutionPage } from './executions/execution';
import { ExecutionsListPage } from './executions/executions-list';
import { JobForm } from './jobs/form/job-form';
import { JobPage } from './jobs/job';
import { JobsPage } from './jobs/jobs';
import { Layout } from './shared/layout';
import { NotFound } from './shared/not-found';
import { OverviewPage } from './overview/overview';
import { SignIn } from './auth/sign-in';
import { TeamsPage } from './auth/teams';
import { managesTokens, TokensPage } from './auth/tokens';
import { WorkersPage } from './workers/workers';

const UUID = '([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})';

/** Who a page is for: a role, or a role and whom else besides (people, for their own tokens). */
type Access = Role | { role: Role; or: (session: Session) => boolean };

const allowed = (access: Access, session: Session) =>
  typeof access === 'string' ? session.can(access) : session.can(access.role) || access.or(session);

/** Each page by the path below /ui/ that shows it, and whom it is for when not every reader. */
const ROUTES: Array<[RegExp, (match: string[], location: Location) => ComponentChildren, Access?]> = [
  [/^\/$/, () => <OverviewPage />],
  [/^\/jobs$/, (_, location) => <JobsPage query={location.query} />],
  [/^\/jobs\/new$/, () => <JobForm />, 'admin'],
  [new RegExp(`^/jobs/${UUID}$`), ([, id], location) => <JobPage id={id!} query={location.query} />],
  [new RegExp(`^/jobs/${UUID}/edit$`), ([, id]) => <JobForm id={id} />, 'admin'],
  [/^\/executions$/, (_, location) => <ExecutionsListPage query={location.query} />],
  [new RegExp(`^/executions/${UUID}$`), ([, id]) => <ExecutionPage id={id!} />],
  [/^\/workers$/, () => <WorkersPage />],
  [/^\/tokens$/, (_, location) => <TokensPage query={location.query} />, { role: 'admin', or: managesTokens }],
  [/^\/teams$/, () => <TeamsPage />],
  [/^\/audit$/, (_, location) => <AuditPage query={location.query} />, 'admin'],
  [/^\/channels$/, (_, location) => <ChannelsPage query={location.query} />, 'admin'],
  [/^\/concurrency-groups$/, () => <ConcurrencyGroupsPage />, 'admin'],
];

function Page() {
  const location = useLocation();
  const session = useSession();
  for (const [pattern, render, role] of ROUTES) {
    const match = pattern.exec(location.path);
    if (match && role && !allowed(role, session)) return <Refused role={typeof role === 'string' ? role : role.role} />;
    if (match) return <>{render([...match], location)}</>;
  }
  return <NotFound />;
}

export function App() {
  return (
    <SessionGate signIn={(props) => <SignIn {...props} />}>
      <Layout>
        <Page />
      </Layout>
    </SessionGate>
  );
}
