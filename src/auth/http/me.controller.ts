import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import type { Principal } from '../../shared/domain/principal.js';
import { ROLES } from '../../shared/domain/role.js';
import { Caller } from '../../shared/http/access.decorators.js';

class MeResponse {
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uuid',
    description: 'null for the token set by ORBIT_ADMIN_TOKEN',
  })
  tokenId!: string | null;
  @ApiProperty({ example: 'ci' })
  name!: string;
  @ApiProperty({ enum: ROLES, example: 'operator', description: 'Each role includes the ones before it' })
  role!: string;
}

/** Lets a client (the dashboard) show only what the token it holds may do. */
@ApiTags('tokens')
@ApiBearerAuth()
@Controller('auth')
export class MeController {
  @Get('me')
  @ApiOperation({ summary: 'The token this request was sent with: its name and role (any role)' })
  @ApiOkResponse({ type: MeResponse })
  @ApiErrors()
  me(@Caller() caller: Principal): MeResponse {
    return { tokenId: caller.tokenId, name: caller.name, role: caller.role };
  }
}
