import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'executions' })
export class ExecutionOrmEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'job_id' })
  jobId!: string;

  @Column('text')
  command!: string;

  @Column('integer', { name: 'max_retries' })
  maxRetries!: number;

  @Column('integer', { name: 'timeout_seconds' })
  timeoutSeconds!: number;

  @Column('text')
  status!: string;

  @Column('integer')
  attempt!: number;

  @Column('text')
  trigger!: string;

  @Column('timestamptz', { name: 'scheduled_for', nullable: true })
  scheduledFor!: Date | null;

  @Column('uuid', { name: 'retry_of', nullable: true })
  retryOf!: string | null;

  @Column('timestamptz', { name: 'due_at' })
  dueAt!: Date;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'started_at', nullable: true })
  startedAt!: Date | null;

  @Column('timestamptz', { name: 'finished_at', nullable: true })
  finishedAt!: Date | null;

  @Column('integer', { name: 'exit_code', nullable: true })
  exitCode!: number | null;

  @Column('text', { name: 'error_message', nullable: true })
  errorMessage!: string | null;

  @Column('text', { name: 'worker_id', nullable: true })
  workerId!: string | null;

  @Column('timestamptz', { name: 'lease_expires_at', nullable: true })
  leaseExpiresAt!: Date | null;

  @Column('integer')
  version!: number;
}
