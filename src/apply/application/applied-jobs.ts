/** The jobs an apply created or adopted: the only ones its `--prune` deletes. */
export abstract class AppliedJobs {
  /** Serialises applies: held until the current transaction ends. */
  abstract lock(): Promise<void>;
  abstract ids(): Promise<Set<string>>;
  abstract mark(jobId: string): Promise<void>;
  abstract unmark(jobId: string): Promise<void>;
}
