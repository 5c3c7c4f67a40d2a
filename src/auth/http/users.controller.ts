import { Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiTags,
} from '@nestjs/swagger';
import type { Principal } from '../../shared/domain/principal.js';
import { Caller, PeopleCheckedByRoute, TeamsCheckedByRoute } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import { PeopleService } from '../application/people.service.js';
import type { User } from '../application/people.repository.js';
import { mustBeOrbitAdmin } from '../domain/team-access.js';

class UserResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;
  @ApiProperty({ example: 'Ada Lovelace' })
  name!: string;
  @ApiProperty({ type: String, nullable: true, example: 'ada@example.com' })
  email!: string | null;
  @ApiProperty({
    type: [String],
    example: ['payments-oncall'],
    description: 'As the issuer gave them at the last sign-in',
  })
  groups!: string[];
  @ApiProperty({ example: '2026-12-05T09:00:00.000Z' })
  lastSignInAt!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Set: removed; their sessions ended and a new sign-in is refused',
  })
  removedAt!: string | null;

  static from(user: User): UserResponse {
    return {
      id: user.id,
      name: user.name,
      email: user.email,
      groups: user.groups,
      lastSignInAt: user.lastSignInAt.toISOString(),
      removedAt: user.removedAt?.toISOString() ?? null,
    };
  }
}

class UserListResponse {
  @ApiProperty({ type: [UserResponse] })
  items!: UserResponse[];
}

/** The people who signed in through the issuer (Orbit admins only). */
@ApiTags('teams')
@ApiBearerAuth()
@PeopleCheckedByRoute()
@TeamsCheckedByRoute()
@Controller('users')
export class UsersController {
  constructor(private readonly people: PeopleService) {}

  @Get()
  @ApiOperation({ summary: 'The people who signed in, by name (Orbit admin)' })
  @ApiOkResponse({ type: UserListResponse })
  @ApiErrors()
  async list(@Caller() caller: Principal): Promise<UserListResponse> {
    mustBeOrbitAdmin(caller, 'list the people');
    return { items: (await this.people.listUsers()).map((user) => UserResponse.from(user)) };
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('user.removed')
  @ApiOperation({ summary: 'Remove a person (Orbit admin): their sessions end at once, and a new sign-in is refused' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(400, 404)
  async remove(@Caller() caller: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    mustBeOrbitAdmin(caller, 'remove a person');
    await this.people.removeUser(id);
  }
}
