import { Module } from '@nestjs/common';
import { EventConsumers } from './application/event-consumers.js';
import { EventCursorRepository } from './application/event-cursor.repository.js';
import { EventLog } from './application/event-log.js';
import { EventRetention } from './application/event-retention.js';
import { EventTeams, JobTeamLookup } from './application/event-teams.js';
import { EventWakeups } from './application/event-wakeups.js';
import { SlotHistory } from './application/slot-history.js';
import { EventsController } from './http/events.controller.js';
import { PgEventListener } from './infrastructure/pg-event-listener.js';
import { SqlEventCursorRepository } from './infrastructure/sql-event-cursor.repository.js';
import { SqlEventLog } from './infrastructure/sql-event-log.js';
import { SqlEventRetention } from './infrastructure/sql-event-retention.js';
import { SqlJobTeamLookup } from './infrastructure/sql-job-team-lookup.js';
import { SqlSlotHistory } from './infrastructure/sql-slot-history.js';
import { Database } from '../shared/infrastructure/database.js';

/** How long a read waits at a gap for the transactions open then (see SqlEventLog). */
const GAP_WAIT_MS = 1000;

/** The stream of every state change: its endpoints, its followers' wake-ups, and consumers with cursors. */
@Module({
  controllers: [EventsController],
  providers: [
    {
      provide: EventLog,
      inject: [Database],
      useFactory: (db: Database) => new SqlEventLog(db, { maxMs: GAP_WAIT_MS }),
    },
    { provide: EventWakeups, useClass: PgEventListener },
    { provide: EventCursorRepository, useClass: SqlEventCursorRepository },
    { provide: EventRetention, useClass: SqlEventRetention },
    { provide: SlotHistory, useClass: SqlSlotHistory },
    { provide: JobTeamLookup, useClass: SqlJobTeamLookup },
    EventTeams,
    EventConsumers,
  ],
  exports: [EventLog, EventWakeups, EventConsumers, EventRetention, SlotHistory],
})
export class EventsModule {}
