import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import type { Principal } from '../../shared/domain/principal.js';
import { ROLES } from '../../shared/domain/role.js';
import { Caller, SignedIn, TeamsCheckedByRoute } from '../../shared/http/access.decorators.js';

class TeamRoleResponse {
  @ApiProperty({ example: 'payments' })
  name!: string;
  @ApiProperty({ enum: ROLES, example: 'operator' })
  role!: string;
}

class MeResponse {
  @ApiProperty({ enum: ['user', 'token'], example: 'user' })
  kind!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uuid',
    description: 'The token: null for a person and for the token set by ORBIT_ADMIN_TOKEN',
  })
  tokenId!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'The person signed in (null for a token)' })
  userId!: string | null;
  @ApiProperty({ example: 'Ada Lovelace' })
  name!: string;
  @ApiProperty({ type: String, nullable: true, example: 'ada@example.com' })
  email!: string | null;
  @ApiProperty({
    enum: ROLES,
    nullable: true,
    example: 'operator',
    description: "The role that holds across the organisation's routes; null: a person with no grant yet",
  })
  role!: string | null;
  @ApiProperty({ description: 'An Orbit admin: sees and manages everything, teams and grants included' })
  admin!: boolean;
  @ApiProperty({
    type: [TeamRoleResponse],
    description:
      "A person's teams, with their role in each (an organisation-wide token has none: its role holds in all)",
  })
  teams!: TeamRoleResponse[];
}

/** Lets a client (the dashboard) show only what its caller may do. */
@ApiTags('tokens')
@ApiBearerAuth()
@TeamsCheckedByRoute()
@Controller('auth')
export class MeController {
  @Get('me')
  @SignedIn()
  @ApiOperation({ summary: 'Who is calling: a token or a person, its role, and its teams (any caller)' })
  @ApiOkResponse({ type: MeResponse })
  @ApiErrors()
  me(@Caller() caller: Principal): MeResponse {
    return {
      kind: caller.kind,
      tokenId: caller.tokenId,
      userId: caller.userId,
      name: caller.name,
      email: caller.email,
      role: caller.role,
      admin: caller.admin,
      teams: caller.teams,
    };
  }
}
