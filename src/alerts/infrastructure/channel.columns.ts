import { TableColumns } from '../../shared/infrastructure/table-columns.js';
import { ChannelProps } from '../domain/channel.js';

/**
 * The columns of `channels` that hold a channel's props, one per field (the compiler checks that
 * none is missing). Not listed: `type`, a copy of `settings.type` written on insert for the
 * table's check (a channel's type never changes).
 */
export const CHANNEL_COLUMNS = new TableColumns<ChannelProps>('channels', {
  id: { type: 'uuid' },
  name: { type: 'text' },
  team: { type: 'text' },
  settings: { type: 'jsonb' },
  allJobsOn: { type: 'text[]' },
  createdAt: { type: 'timestamptz' },
  updatedAt: { type: 'timestamptz' },
  version: { type: 'integer' },
});
