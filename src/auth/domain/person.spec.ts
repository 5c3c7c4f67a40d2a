import { claimsOfPerson, personPrincipal, teamRoles, type Grant } from './person.js';
import { sessionLive, sessionNeedsTouch } from './session.js';
import { checkGrants } from './team-access.js';

const person = { name: 'Ada', email: 'Ada@Example.com', username: 'ada', groups: ['payments', 'sre'] };

describe('people', () => {
  it('claims: the name falls back to the user name, then the email; groups come as a list or as one string', () => {
    expect(claimsOfPerson({ sub: 's1', preferred_username: 'ada', groups: ['a', 'a', ' ', 'b'] }, 'groups')).toEqual({
      name: 'ada',
      email: null,
      username: 'ada',
      groups: ['a', 'b'],
    });
    expect(claimsOfPerson({ sub: 's2', email: 'x@y.z', roles: 'ops, dev' }, 'roles')).toMatchObject({
      name: 'x@y.z',
      groups: ['ops', 'dev'],
    });
    expect(claimsOfPerson({ sub: 's3' }, 'groups')).toMatchObject({ name: 's3', groups: [] });
  });

  it('the strongest grant of each team holds; a user grant names the person by email or user name, without case', () => {
    const grants: Grant[] = [
      { team: 'payments', kind: 'group', subject: 'payments', role: 'viewer' },
      { team: 'payments', kind: 'user', subject: 'ada@example.com', role: 'operator' },
      { team: 'default', kind: 'group', subject: 'sre', role: 'admin' },
      { team: 'other', kind: 'group', subject: 'Payments', role: 'admin' }, // groups are compared as the issuer spells them
    ];
    expect(teamRoles(grants, person)).toEqual([
      { name: 'default', role: 'admin' },
      { name: 'payments', role: 'operator' },
    ]);
  });

  it('an admin group makes an Orbit admin; otherwise the role checked first is the strongest of their teams', () => {
    const grants: Grant[] = [
      { team: 'payments', kind: 'group', subject: 'payments', role: 'operator' },
      { team: 'default', kind: 'group', subject: 'payments', role: 'viewer' },
    ];
    expect(personPrincipal({ ...person, userId: 'u' }, grants, ['sre'], 'session')).toMatchObject({
      admin: true,
      role: 'admin',
    });
    expect(personPrincipal({ ...person, userId: 'u' }, grants, [], 'session')).toMatchObject({
      admin: false,
      role: 'operator',
      teams: [
        { name: 'default', role: 'viewer' },
        { name: 'payments', role: 'operator' },
      ],
    });
  });

  it('a session lives while used within the idle time, and never past the absolute one', () => {
    const lifetimes = { idleMs: 60_000 * 60, maxMs: 12 * 3_600_000 };
    const start = new Date('2026-12-05T00:00:00Z');
    const at = (minutes: number) => new Date(start.getTime() + minutes * 60_000);
    const session = { createdAt: start, lastSeenAt: at(700), endedAt: null };
    expect(sessionLive(session, at(719), lifetimes)).toBe(true);
    expect(sessionLive(session, at(720), lifetimes)).toBe(false);
    expect(sessionLive({ ...session, lastSeenAt: at(0) }, at(60), lifetimes)).toBe(false);
    expect(sessionLive({ ...session, endedAt: at(701) }, at(702), lifetimes)).toBe(false);
    expect(sessionNeedsTouch(session, at(700.5))).toBe(false);
    expect(sessionNeedsTouch(session, at(701))).toBe(true);
  });

  it('grants: every mistake is named at once, by its place', () => {
    expect(() =>
      checkGrants('payments', [
        { kind: 'team', subject: 'x', role: 'viewer' },
        { kind: 'group', subject: '', role: 'root' },
        { kind: 'user', subject: 'Ada@Example.com', role: 'viewer' },
        { kind: 'user', subject: 'ada@example.com', role: 'admin' },
      ]),
    ).toThrow(
      'grants[0].kind must be one of group, user; grants[1].subject must be 1 to 200 characters; ' +
        'grants[1].role must be one of viewer, operator, admin; ' +
        "grants[3] grants user 'ada@example.com' a second time: one role per user",
    );
    expect(checkGrants('payments', [{ kind: 'user', subject: ' Ada@Example.com ', role: 'viewer' }])).toEqual([
      { team: 'payments', kind: 'user', subject: 'ada@example.com', role: 'viewer' },
    ]);
  });
});
