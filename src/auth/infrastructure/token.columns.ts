import { TableColumns } from '../../shared/infrastructure/table-columns.js';
import { ApiTokenProps } from '../domain/api-token.js';

/** The columns of `api_tokens`, one per field of a token's props (the compiler checks that none is missing). */
export const TOKEN_COLUMNS = new TableColumns<ApiTokenProps>('api_tokens', {
  id: { type: 'uuid' },
  name: { type: 'text' },
  role: { type: 'text' },
  tokenHash: { type: 'text' },
  createdAt: { type: 'timestamptz' },
  revokedAt: { type: 'timestamptz' },
  userId: { type: 'uuid' },
  team: { type: 'text' },
  expiresAt: { type: 'timestamptz' },
});
