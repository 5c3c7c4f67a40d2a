import type { Role } from './role.js';

/** Who is calling: the token's name is what the audit trail records. */
export interface Principal {
  tokenId: string | null;
  name: string;
  role: Role;
}
