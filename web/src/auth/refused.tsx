import type { Role } from '../api/client';
import { Link } from '../shared/router';
import { PageTitle } from '../shared/ui';
import { useSession } from './session';

const WHO: Record<Role, string> = { viewer: 'viewers', operator: 'operators', admin: 'admins' };

/**
 * A page the token's role may not use, opened by its address: the refusal alone, never the
 * page's form or controls, which the API would refuse anyway.
 */
export function Refused({ role }: { role: Role }) {
  const { me } = useSession();
  return (
    <>
      <PageTitle title="Not allowed">Not allowed</PageTitle>
      <p>
        This page is for {WHO[role]}: {me.name} is {me.role === 'admin' ? 'an' : 'a'} {me.role} token.{' '}
        <Link href="/">Go to the overview</Link>.
      </p>
    </>
  );
}
