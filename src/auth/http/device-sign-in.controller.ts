import { Body, Controller, HttpStatus, Logger, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiExtraModels, ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { Public, TeamsCheckedByRoute } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { CommandLineTokenDto } from './dto/command-line-token.dto.js';
import { EmptyBodyDto } from '../../shared/http/empty-body.dto.js';
import { ErrorResponseDto } from '../../shared/http/error-response.dto.js';
import { errorBody } from '../../shared/http/http-error.filter.js';
import { SignInRefused } from '../application/oidc-issuer.js';
import {
  DeviceSignInEnded,
  DeviceSignInPending,
  DeviceSignInService,
  StartedDeviceSignIn,
} from '../application/device-sign-in.service.js';
import { CLI_TOKEN_DAYS } from '../application/people.service.js';
import { CreatedTokenResponse, TokenResponse } from './dto/token.dto.js';

class DeviceSignInResponse implements StartedDeviceSignIn {
  @ApiProperty({ example: 'WDJB-MJHT', description: 'The code the person enters at the issuer' })
  userCode!: string;
  @ApiProperty({ example: 'https://sso.example.com/device', description: 'Where the person enters it' })
  verificationUri!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'https://sso.example.com/device?user_code=WDJB-MJHT',
    description: 'The same page with the code filled in (null: the issuer has none)',
  })
  verificationUriComplete!: string | null;
  @ApiProperty({ example: 5, description: 'Seconds to wait between two polls of POST /auth/device/token' })
  interval!: number;
  @ApiProperty({ example: 600, description: 'Seconds until the code expires' })
  expiresIn!: number;
  @ApiProperty({ description: 'What POST /auth/device/token is given: opaque, and redeemable once' })
  handle!: string;
}

class DeviceTokenDto extends CommandLineTokenDto {
  @ApiProperty({ description: 'The handle POST /auth/device answered' })
  @IsString()
  handle!: string;
}

const POLL_STATES = ['authorization_pending', 'slow_down'] as const;

class DeviceSignInPendingResponse extends ErrorResponseDto {
  @ApiProperty({
    enum: POLL_STATES,
    description: 'authorization_pending: not confirmed yet; slow_down: polled too soon, the interval grew',
  })
  code!: (typeof POLL_STATES)[number];
  @ApiProperty({ example: 5, description: 'Seconds to wait before the next poll' })
  interval!: number;
}

/**
 * `orbit login --sso` through the issuer's device authorization grant, which Orbit runs on the
 * command line's behalf: the client secret stays here.
 */
@ApiTags('sign-in')
@TeamsCheckedByRoute()
@Controller('auth/device')
export class DeviceSignInController {
  private readonly logger = new Logger('SignIn');

  constructor(private readonly signIns: DeviceSignInService) {}

  @Public()
  @Post()
  @ApiOperation({
    summary: "Start a command line's sign-in through the issuer's device grant (GET /auth/providers says if offered)",
    description:
      'The person opens `verificationUri` (or `verificationUriComplete`) on any device and enters `userCode`; the command line polls POST /auth/device/token with `handle`. 404 when no issuer is set up, or it offers Orbit no device grant.',
  })
  @ApiCreatedResponse({ type: DeviceSignInResponse })
  @ApiErrors(404)
  @ApiResponse({ status: 502, description: 'The issuer cannot be reached', type: ErrorResponseDto })
  async start(@Body() _body: EmptyBodyDto, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, async (): Promise<DeviceSignInResponse> => this.signIns.start());
  }

  @Public()
  @Post('token')
  @ApiExtraModels(DeviceSignInPendingResponse)
  @ApiOperation({
    summary: 'Poll a device sign-in once: the personal token once the person confirmed at the issuer',
    description: `Ask at most every \`interval\` seconds. The token is the person's, for their only team (or \`team\`), with their role there, for ${CLI_TOKEN_DAYS} days; a handle gives one token.`,
  })
  @ApiCreatedResponse({ type: CreatedTokenResponse })
  @ApiErrors(400, 404)
  @ApiResponse({
    status: 428,
    description:
      'Not confirmed yet (`authorization_pending`), or polled too soon (`slow_down`): ask again after `interval`',
    type: DeviceSignInPendingResponse,
  })
  @ApiResponse({ status: 403, description: 'The person (or the issuer) refused the sign-in', type: ErrorResponseDto })
  @ApiResponse({
    status: 410,
    description: 'The code expired before the sign-in was confirmed',
    type: ErrorResponseDto,
  })
  @ApiResponse({ status: 502, description: 'The issuer cannot be reached', type: ErrorResponseDto })
  async token(@Body() body: DeviceTokenDto, @Res() reply: FastifyReply): Promise<void> {
    await this.answer(reply, async (): Promise<CreatedTokenResponse> => {
      const { token, secret } = await this.signIns.redeem(body.handle, body.name, body.team);
      return { ...TokenResponse.from(token), token: secret };
    });
  }

  /** 201 with what `work` made, else the grant's own refusals; any other error goes to the error filter. */
  private async answer(reply: FastifyReply, work: () => Promise<object>): Promise<void> {
    let body: object;
    let status: number = HttpStatus.CREATED;
    try {
      body = await work();
    } catch (error) {
      ({ status, body } = refusal(error, this.logger));
    }
    await reply.status(status).header('cache-control', 'no-store').send(body);
  }
}

/** The grant's refusals, with what the command line needs to act on them (rethrown: anything else). */
function refusal(error: unknown, logger: Logger): { status: number; body: object } {
  if (error instanceof DeviceSignInPending) {
    const status = HttpStatus.PRECONDITION_REQUIRED;
    return { status, body: { ...errorBody(status, error.message), code: error.code, interval: error.interval } };
  }
  if (error instanceof DeviceSignInEnded) {
    const status = error.code === 'access_denied' ? HttpStatus.FORBIDDEN : HttpStatus.GONE;
    return { status, body: errorBody(status, error.message) };
  }
  if (error instanceof SignInRefused) {
    logger.warn(`Sign-in refused: ${error.detail ?? error.reason}`);
    const status = error.unreachable ? HttpStatus.BAD_GATEWAY : HttpStatus.BAD_REQUEST;
    return { status, body: errorBody(status, error.reason) };
  }
  throw error;
}
