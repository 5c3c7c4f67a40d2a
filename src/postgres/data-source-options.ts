import type { DataSourceOptions } from 'typeorm';
import { InitialSchema1764460800000 } from '../../migrations/1764460800000-InitialSchema.js';
import { ExecutionTransitionGuard1764547200000 } from '../../migrations/1764547200000-ExecutionTransitionGuard.js';
import { TokensAndAudit1764633600000 } from '../../migrations/1764633600000-TokensAndAudit.js';
import { WorkersAndRetention1764720000000 } from '../../migrations/1764720000000-WorkersAndRetention.js';
import { ExecutionResponseJson1764806400000 } from '../../migrations/1764806400000-ExecutionResponseJson.js';
import { Events1764892800000 } from '../../migrations/1764892800000-Events.js';
import { Alerts1764979200000 } from '../../migrations/1764979200000-Alerts.js';
import { SlotEvents1765065600000 } from '../../migrations/1765065600000-SlotEvents.js';
import { PauseNotesAndTimeline1765152000000 } from '../../migrations/1765152000000-PauseNotesAndTimeline.js';
import { JobOutcomes1765324800000 } from '../../migrations/1765324800000-JobOutcomes.js';
import { Placement1765411200000 } from '../../migrations/1765411200000-Placement.js';
import { ChainsAndParameters1765497600000 } from '../../migrations/1765497600000-ChainsAndParameters.js';
import { LateAndLongRunning1765540800000 } from '../../migrations/1765540800000-LateAndLongRunning.js';
import { AppliedJobs1765584000000 } from '../../migrations/1765584000000-AppliedJobs.js';
import { FinalRunsResponseJson1765670400000 } from '../../migrations/1765670400000-FinalRunsResponseJson.js';
import { ClaimByIndex1765756800000 } from '../../migrations/1765756800000-ClaimByIndex.js';
import { JobsPartialIndexes1765843200000 } from '../../migrations/1765843200000-JobsPartialIndexes.js';
import { SaveByFunction1765929600000 } from '../../migrations/1765929600000-SaveByFunction.js';
import { QueueVacuum1766016000000 } from '../../migrations/1766016000000-QueueVacuum.js';
import { JobDescription1766102400000 } from '../../migrations/1766102400000-JobDescription.js';
import { WorkerLauncher1766188800000 } from '../../migrations/1766188800000-WorkerLauncher.js';
import { DerivedExecutionEvents1766275200000 } from '../../migrations/1766275200000-DerivedExecutionEvents.js';
import { FailingJobOutcomes1766282400000 } from '../../migrations/1766282400000-FailingJobOutcomes.js';
import { RetentionHealth1766361600000 } from '../../migrations/1766361600000-RetentionHealth.js';
import { ExecutionKeysByTriggers1766404800000 } from '../../migrations/1766404800000-ExecutionKeysByTriggers.js';
import { WorkerLoad1766419200000 } from '../../migrations/1766419200000-WorkerLoad.js';
import { QueueAndHistory1766433600000 } from '../../migrations/1766433600000-QueueAndHistory.js';
import { CancelledBy1766448000000 } from '../../migrations/1766448000000-CancelledBy.js';
import { AuditTargetIndex1766451600000 } from '../../migrations/1766451600000-AuditTargetIndex.js';
import { WorkerRunsIndex1766469600000 } from '../../migrations/1766469600000-WorkerRunsIndex.js';
import { HistoryByDay1766476800000 } from '../../migrations/1766476800000-HistoryByDay.js';
import { EventsAndOutputByDay1766480400000 } from '../../migrations/1766480400000-EventsAndOutputByDay.js';
import { PeopleAndTeams1766487600000 } from '../../migrations/1766487600000-PeopleAndTeams.js';
import { TeamOwnership1766494800000 } from '../../migrations/1766494800000-TeamOwnership.js';
import { DeviceSignIns1766502000000 } from '../../migrations/1766502000000-DeviceSignIns.js';
import { JobCheckedAtEnqueue1766509200000 } from '../../migrations/1766509200000-JobCheckedAtEnqueue.js';
import { FewerIndexEntries1766516400000 } from '../../migrations/1766516400000-FewerIndexEntries.js';
import { RowChecksByTrigger1766523600000 } from '../../migrations/1766523600000-RowChecksByTrigger.js';
import { DueIndexOfLimitedRuns1766530800000 } from '../../migrations/1766530800000-DueIndexOfLimitedRuns.js';
import { CreatedSeqOnTheRow1766538000000 } from '../../migrations/1766538000000-CreatedSeqOnTheRow.js';
import { EndsByBlockRange1766545200000 } from '../../migrations/1766545200000-EndsByBlockRange.js';
import { FailedRunsByEnd1766552400000 } from '../../migrations/1766552400000-FailedRunsByEnd.js';
import { QueuedRunsByJob1766559600000 } from '../../migrations/1766559600000-QueuedRunsByJob.js';
import { TriggeredJobsIndex1766566800000 } from '../../migrations/1766566800000-TriggeredJobsIndex.js';
import { EventWakeupsPerSession1766574000000 } from '../../migrations/1766574000000-EventWakeupsPerSession.js';
import { RunJsonBuiltAtRead1766581200000 } from '../../migrations/1766581200000-RunJsonBuiltAtRead.js';

export const MIGRATIONS = [
  InitialSchema1764460800000,
  ExecutionTransitionGuard1764547200000,
  TokensAndAudit1764633600000,
  WorkersAndRetention1764720000000,
  ExecutionResponseJson1764806400000,
  Events1764892800000,
  Alerts1764979200000,
  SlotEvents1765065600000,
  PauseNotesAndTimeline1765152000000,
  JobOutcomes1765324800000,
  Placement1765411200000,
  ChainsAndParameters1765497600000,
  LateAndLongRunning1765540800000,
  AppliedJobs1765584000000,
  FinalRunsResponseJson1765670400000,
  ClaimByIndex1765756800000,
  JobsPartialIndexes1765843200000,
  SaveByFunction1765929600000,
  QueueVacuum1766016000000,
  JobDescription1766102400000,
  WorkerLauncher1766188800000,
  DerivedExecutionEvents1766275200000,
  FailingJobOutcomes1766282400000,
  RetentionHealth1766361600000,
  ExecutionKeysByTriggers1766404800000,
  WorkerLoad1766419200000,
  QueueAndHistory1766433600000,
  CancelledBy1766448000000,
  AuditTargetIndex1766451600000,
  WorkerRunsIndex1766469600000,
  HistoryByDay1766476800000,
  EventsAndOutputByDay1766480400000,
  PeopleAndTeams1766487600000,
  TeamOwnership1766494800000,
  DeviceSignIns1766502000000,
  JobCheckedAtEnqueue1766509200000,
  FewerIndexEntries1766516400000,
  RowChecksByTrigger1766523600000,
  DueIndexOfLimitedRuns1766530800000,
  CreatedSeqOnTheRow1766538000000,
  EndsByBlockRange1766545200000,
  FailedRunsByEnd1766552400000,
  QueuedRunsByJob1766559600000,
  TriggeredJobsIndex1766566800000,
  EventWakeupsPerSession1766574000000,
  RunJsonBuiltAtRead1766581200000,
];

export function dataSourceOptions(url: string, poolSize: number): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    // no entities: repositories write SQL through their column registries (TableColumns)
    entities: [],
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'all',
    synchronize: false,
    logging: false,
    // connections stay open between bursts: a new one costs an authentication handshake, and
    // the statements prepared on the old one are gone
    extra: {
      max: poolSize,
      min: Math.min(2, poolSize),
      idleTimeoutMillis: 300_000,
      connectionTimeoutMillis: 10_000,
      application_name: 'orbit',
    },
  };
}
