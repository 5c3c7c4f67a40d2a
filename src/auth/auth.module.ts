import { Global, Module } from '@nestjs/common';
import { DeviceSignInRepository } from './application/device-sign-in.repository.js';
import { DeviceSignInService } from './application/device-sign-in.service.js';
import { OidcIssuer } from './application/oidc-issuer.js';
import { PeopleRepository } from './application/people.repository.js';
import { PeopleService } from './application/people.service.js';
import { TeamRepository } from './application/team.repository.js';
import { TeamsService } from './application/teams.service.js';
import { TokenRepository } from './application/token.repository.js';
import { TokensService } from './application/tokens.service.js';
import { AuthGuard } from './http/auth.guard.js';
import { DeviceSignInController } from './http/device-sign-in.controller.js';
import { MeController } from './http/me.controller.js';
import { RequestLimits } from './http/request-limits.js';
import { SignInController } from './http/sign-in.controller.js';
import { TeamsController } from './http/teams.controller.js';
import { TokensController } from './http/tokens.controller.js';
import { UsersController } from './http/users.controller.js';
import { OpenIdIssuer } from './infrastructure/openid-issuer.js';
import { SqlDeviceSignInRepository } from './infrastructure/sql-device-sign-in.repository.js';
import { SqlPeopleRepository } from './infrastructure/sql-people.repository.js';
import { SqlTeamRepository } from './infrastructure/sql-team.repository.js';
import { SqlTokenRepository } from './infrastructure/sql-token.repository.js';
import { SqlTeamOwners } from './infrastructure/sql-team-owners.js';
import { TeamOwners } from '../shared/application/team-owners.js';

@Global()
@Module({
  controllers: [
    TokensController,
    MeController,
    SignInController,
    DeviceSignInController,
    TeamsController,
    UsersController,
  ],
  providers: [
    TokensService,
    PeopleService,
    DeviceSignInService,
    TeamsService,
    AuthGuard,
    RequestLimits,
    { provide: TokenRepository, useClass: SqlTokenRepository },
    { provide: PeopleRepository, useClass: SqlPeopleRepository },
    { provide: DeviceSignInRepository, useClass: SqlDeviceSignInRepository },
    { provide: TeamRepository, useClass: SqlTeamRepository },
    { provide: OidcIssuer, useClass: OpenIdIssuer },
    { provide: TeamOwners, useClass: SqlTeamOwners },
  ],
  exports: [TokensService, AuthGuard, RequestLimits, TeamOwners],
})
export class AuthModule {}
