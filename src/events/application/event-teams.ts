import { Injectable } from '@nestjs/common';
import { OrbitEvent } from '../domain/orbit-event.js';

/** Each job's team (null: a deleted job whose team is gone; absent: no such job). Persistence port. */
export abstract class JobTeamLookup {
  abstract teamsOf(jobIds: readonly string[]): Promise<Map<string, string | null>>;
}

/** How many jobs' teams a node keeps, and for how long (a team deleted under a deleted job changes none of its events). */
const CACHED_JOBS = 10_000;
const CACHED_MS = 60_000;

/**
 * Keeps a stream's events to some teams: an event is its job's team's (a job's history moves with
 * it). A node keeps the jobs' teams it looked up, so that a follower's batch costs a lookup of the
 * jobs it has not met only. A job moves by a change of the job, which writes a job event: a batch
 * with a job's event looks its team up again, so the event of a move, and all after it, go to the
 * team it moved to.
 */
@Injectable()
export class EventTeams {
  private readonly known = new Map<string, { team: string | null; until: number }>();

  constructor(private readonly lookup: JobTeamLookup) {}

  /** The events of `teams`' jobs among `events`, in their order. */
  async keep(events: readonly OrbitEvent[], teams: readonly string[]): Promise<OrbitEvent[]> {
    if (events.length === 0) return [];
    const now = Date.now();
    const changed = new Set(events.filter((event) => event.type.startsWith('job.')).map((event) => event.jobId));
    const teamOf = new Map<string, string | null>();
    const unknown: string[] = [];
    for (const jobId of new Set(events.map((event) => event.jobId))) {
      const cached = changed.has(jobId) ? undefined : this.known.get(jobId);
      if (cached && cached.until > now) teamOf.set(jobId, cached.team);
      else unknown.push(jobId);
    }
    if (unknown.length > 0) {
      const found = await this.lookup.teamsOf(unknown);
      for (const jobId of unknown) {
        const team = found.get(jobId) ?? null;
        teamOf.set(jobId, team);
        this.remember(jobId, team, now);
      }
    }
    const wanted = new Set(teams);
    return events.filter((event) => {
      const team = teamOf.get(event.jobId);
      return team !== null && team !== undefined && wanted.has(team);
    });
  }

  private remember(jobId: string, team: string | null, now: number): void {
    this.known.delete(jobId);
    this.known.set(jobId, { team, until: now + CACHED_MS });
    if (this.known.size > CACHED_JOBS) this.known.delete(this.known.keys().next().value!);
  }
}
