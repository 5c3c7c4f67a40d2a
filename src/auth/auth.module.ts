import { Global, Module } from '@nestjs/common';
import { TokenRepository } from './application/token.repository.js';
import { TokensService } from './application/tokens.service.js';
import { AuthGuard } from './http/auth.guard.js';
import { MeController } from './http/me.controller.js';
import { RequestLimits } from './http/request-limits.js';
import { TokensController } from './http/tokens.controller.js';
import { SqlTokenRepository } from './infrastructure/sql-token.repository.js';

@Global()
@Module({
  controllers: [TokensController, MeController],
  providers: [TokensService, AuthGuard, RequestLimits, { provide: TokenRepository, useClass: SqlTokenRepository }],
  exports: [TokensService, AuthGuard, RequestLimits],
})
export class AuthModule {}
