import type { Me, Role } from '../api/client';
import { Link } from '../shared/router';
import { PageTitle } from '../shared/ui';
import { useSession } from './session';

const WHO: Record<Role, string> = { viewer: 'viewers', operator: 'operators', admin: 'admins' };

/** What the caller is: a token of its role, or a person with theirs (or none yet). */
function who(me: Me): string {
  if (me.kind === 'token') return `is ${me.role === 'admin' ? 'an' : 'a'} ${me.role} token`;
  return me.role ? `has the ${me.role} role` : 'has no role yet: an Orbit admin grants one to your group';
}

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
        This page is for {WHO[role]}: {me.name} {who(me)}. <Link href="/">Go to the overview</Link>.
      </p>
    </>
  );
}
