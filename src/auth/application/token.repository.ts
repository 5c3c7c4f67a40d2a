import { Page, PageRequest } from '../../shared/application/page.js';
import { ApiToken } from '../domain/api-token.js';

export abstract class TokenRepository {
  abstract insert(token: ApiToken): Promise<void>;
  /** The live (not revoked) token with this hash. */
  abstract findLiveByHash(tokenHash: string): Promise<ApiToken | null>;
  /** Live tokens (of one person, when given), newest first. */
  abstract list(page: PageRequest, userId?: string): Promise<Page<ApiToken>>;
  /** Revokes a live token (of one person, when given); false when there is none with this id. */
  abstract revoke(id: string, now: Date, userId?: string): Promise<boolean>;
  abstract countLive(): Promise<number>;
  /** Runs `work` while no other process runs it (first-start token creation). */
  abstract exclusively<T>(work: () => Promise<T>): Promise<T>;
}
