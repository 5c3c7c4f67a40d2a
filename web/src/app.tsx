import type { ComponentChildren } from 'preact';
import { useLocation, type Location } from './shared/router';
import { SessionGate } from './auth/session';
import { AuditPage } from './audit/audit';
import { ChannelsPage } from './channels/channels';
import { ConcurrencyGroupsPage } from './concurrency-groups/concurrency-groups';
import { ExecutionPage } from './executions/execution';
import { JobForm } from './jobs/form/job-form';
import { JobPage } from './jobs/job';
import { JobsPage } from './jobs/jobs';
import { Layout } from './shared/layout';
import { NotFound } from './shared/not-found';
import { OverviewPage } from './overview/overview';
import { SignIn } from './auth/sign-in';
import { TokensPage } from './auth/tokens';
import { WorkersPage } from './workers/workers';

const UUID = '([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})';

/** Each page by the path below /ui/ that shows it. */
const ROUTES: Array<[RegExp, (match: string[], location: Location) => ComponentChildren]> = [
  [/^\/$/, () => <OverviewPage />],
  [/^\/jobs$/, (_, location) => <JobsPage query={location.query} />],
  [/^\/jobs\/new$/, () => <JobForm />],
  [new RegExp(`^/jobs/${UUID}$`), ([, id], location) => <JobPage id={id!} query={location.query} />],
  [new RegExp(`^/jobs/${UUID}/edit$`), ([, id]) => <JobForm id={id} />],
  [new RegExp(`^/executions/${UUID}$`), ([, id]) => <ExecutionPage id={id!} />],
  [/^\/workers$/, () => <WorkersPage />],
  [/^\/tokens$/, (_, location) => <TokensPage query={location.query} />],
  [/^\/audit$/, (_, location) => <AuditPage query={location.query} />],
  [/^\/channels$/, (_, location) => <ChannelsPage query={location.query} />],
  [/^\/concurrency-groups$/, () => <ConcurrencyGroupsPage />],
];

function Page() {
  const location = useLocation();
  for (const [pattern, render] of ROUTES) {
    const match = pattern.exec(location.path);
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
