import { ApiProperty } from '@nestjs/swagger';
import { Allow, IsString } from 'class-validator';
import { ROLES } from '../../../shared/domain/role.js';
import type { Grant } from '../../domain/person.js';
import type { Team } from '../../application/team.repository.js';

export class CreateTeamDto {
  @ApiProperty({ example: 'payments', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' })
  @IsString()
  name!: string;
}

export class TeamResponse {
  @ApiProperty({ example: 'payments' })
  name!: string;
  @ApiProperty({ example: '2026-12-05T10:00:00.000Z' })
  createdAt!: string;
  @ApiProperty({
    enum: ROLES,
    nullable: true,
    description: "The caller's role in the team (an Orbit admin's is admin; an organisation-wide token's its own)",
  })
  role!: string | null;

  static from(team: Team & { role?: string | null }): TeamResponse {
    return { name: team.name, createdAt: team.createdAt.toISOString(), role: team.role ?? null };
  }
}

export class TeamListResponse {
  @ApiProperty({ type: [TeamResponse] })
  items!: TeamResponse[];
}

export class GrantDto {
  @ApiProperty({ enum: ['group', 'user'], example: 'group', description: "An issuer's group, or one person" })
  kind!: string;
  @ApiProperty({
    example: 'payments-oncall',
    description: 'The group as the issuer names it, or the person by email or user name (compared without case)',
  })
  subject!: string;
  @ApiProperty({ enum: ROLES, example: 'operator' })
  role!: string;

  static from(grant: Grant): GrantDto {
    return { kind: grant.kind, subject: grant.subject, role: grant.role };
  }
}

export class GrantsDto {
  @ApiProperty({ type: [GrantDto], description: "The team's grants: all of them (the ones left out are removed)" })
  @Allow()
  grants!: unknown;
}

export class GrantsResponse {
  @ApiProperty({ example: 'payments' })
  team!: string;
  @ApiProperty({ type: [GrantDto] })
  grants!: GrantDto[];
}
