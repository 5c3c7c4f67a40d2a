import { PageTitle } from './ui';
import { Link } from './router';

export function NotFound() {
  return (
    <>
      <PageTitle title="Not found">Not found</PageTitle>
      <p>
        The dashboard has no such page. <Link href="/">Go to the overview</Link>.
      </p>
    </>
  );
}
