import type { ComponentChildren } from 'preact';
import { useLocation, type Location } from './shared/router';
import { SessionGate, useSession } from './auth/session';
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
import { TokensPage } from './auth/tokens';
import { WorkersPage } from './workers/workers';

const UUID = '([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})';

/** Each page by the path below /ui/ that shows it, and the role it is for when not every reader's. */
const ROUTES: Array<[RegExp, (match: string[], location: Location) => ComponentChildren, Role?]> = [
  [/^\/$/, () => <OverviewPage />],
  [/^\/jobs$/, (_, location) => <JobsPage query={location.query} />],
  [/^\/jobs\/new$/, () => <JobForm />, 'admin'],
  [new RegExp(`^/jobs/${UUID}$`), ([, id], location) => <JobPage id={id!} query={location.query} />],
  [new RegExp(`^/jobs/${UUID}/edit$`), ([, id]) => <JobForm id={id} />, 'admin'],
  [/^\/executions$/, (_, location) => <ExecutionsListPage query={location.query} />],
  [new RegExp(`^/executions/${UUID}$`), ([, id]) => <ExecutionPage id={id!} />],
  [/^\/workers$/, () => <WorkersPage />],
  [/^\/tokens$/, (_, location) => <TokensPage query={location.query} />, 'admin'],
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
    if (match && role && !session.can(role)) return <Refused role={role} />;
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
