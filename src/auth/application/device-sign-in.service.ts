import { Injectable, Logger } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { Clock } from '../../shared/domain/clock.js';
import { NotFoundError } from '../../shared/domain/domain-errors.js';
import { hashSecret } from '../domain/api-token.js';
import { newSessionSecret } from '../domain/session.js';
import { DeviceSignInRepository } from './device-sign-in.repository.js';
import { DeviceGrantUnavailable, OidcIssuer } from './oidc-issuer.js';
import { PeopleService } from './people.service.js';

/** What the command line shows the person, and the handle it polls with. */
export interface StartedDeviceSignIn {
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string | null;
  interval: number;
  expiresIn: number;
  handle: string;
}

/** RFC 8628: a slow_down adds this much to the interval, for this poll and every later one. */
const SLOW_DOWN_SECONDS = 5;

/** The person has not confirmed yet (or the command line polls too often): ask again after `interval` seconds. */
export class DeviceSignInPending extends Error {
  constructor(
    readonly code: 'authorization_pending' | 'slow_down',
    readonly interval: number,
    message: string,
  ) {
    super(message);
    this.name = 'DeviceSignInPending';
  }
}

/** The sign-in is over without a token: refused at the issuer, or its code expired. */
export class DeviceSignInEnded extends Error {
  constructor(
    readonly code: 'access_denied' | 'expired_token',
    message: string,
  ) {
    super(message);
    this.name = 'DeviceSignInEnded';
  }
}

const UNKNOWN = 'This sign-in is unknown, or was redeemed or ended already: start it again (orbit login --sso)';

/**
 * `orbit login --sso` through the issuer's device authorization grant. Orbit runs the grant, as
 * only it holds the client secret: the command line gets the user code to show and an opaque
 * handle, and polls Orbit, which asks the issuer at most once per interval. The person and their
 * token are made exactly as for the loopback sign-in (PeopleService).
 */
@Injectable()
export class DeviceSignInService {
  private readonly logger = new Logger('SignIn');

  constructor(
    private readonly config: OrbitConfig,
    private readonly clock: Clock,
    private readonly issuer: OidcIssuer,
    private readonly signIns: DeviceSignInRepository,
    private readonly people: PeopleService,
  ) {}

  /** Whether `orbit login --sso` can use the device grant here. */
  async offered(): Promise<boolean> {
    return this.config.oidc !== undefined && (await this.issuer.offersDeviceGrant());
  }

  async start(): Promise<StartedDeviceSignIn> {
    if (!this.config.oidc) {
      throw new NotFoundError(
        'Sign-in through an issuer is not set up here: set ORBIT_OIDC_ISSUER and ORBIT_OIDC_CLIENT_ID',
      );
    }
    let started;
    try {
      started = await this.issuer.startDevice();
    } catch (error) {
      if (!(error instanceof DeviceGrantUnavailable)) throw error;
      throw new NotFoundError(
        `${error.detail}: sign in with a browser on this machine instead (orbit login --sso --loopback)`,
      );
    }
    const now = this.clock.now();
    const { secret: handle, hash } = newSessionSecret();
    await this.signIns.save({
      handleHash: hash,
      deviceCode: started.deviceCode,
      nonce: started.nonce,
      intervalSeconds: started.interval,
      nextPollAt: now,
      expiresAt: new Date(now.getTime() + started.expiresIn * 1000),
      createdAt: now,
    });
    return {
      userCode: started.userCode,
      verificationUri: started.verificationUri,
      verificationUriComplete: started.verificationUriComplete,
      interval: started.interval,
      expiresIn: started.expiresIn,
      handle,
    };
  }

  /**
   * Asks the issuer once whether the person confirmed: their personal token for the command line
   * (once per handle), DeviceSignInPending, DeviceSignInEnded, or SignInRefused.
   */
  async redeem(handle: unknown, name: unknown, team: unknown) {
    const handleHash = hashSecret(typeof handle === 'string' ? handle : '');
    const now = this.clock.now();
    const claim = await this.signIns.claimPoll(handleHash, now);
    switch (claim.kind) {
      case 'unknown':
        throw new NotFoundError(UNKNOWN, 'handle');
      case 'expired':
        throw expired();
      case 'early': {
        const interval = claim.signIn.intervalSeconds + SLOW_DOWN_SECONDS;
        await this.signIns.slowDown(handleHash, interval, now);
        throw new DeviceSignInPending('slow_down', interval, `Polled too soon: wait ${interval} seconds between polls`);
      }
    }
    const { signIn } = claim;
    const poll = await this.issuer.pollDevice(signIn.deviceCode, signIn.nonce);
    switch (poll.status) {
      case 'authorization_pending':
        throw new DeviceSignInPending(
          'authorization_pending',
          signIn.intervalSeconds,
          'Not confirmed at the issuer yet: ask again after the interval',
        );
      case 'slow_down': {
        const interval = signIn.intervalSeconds + SLOW_DOWN_SECONDS;
        await this.signIns.slowDown(handleHash, interval, now);
        throw new DeviceSignInPending(
          'slow_down',
          interval,
          `The issuer asks to wait ${interval} seconds between polls`,
        );
      }
      case 'access_denied':
        await this.signIns.take(handleHash);
        throw new DeviceSignInEnded(
          'access_denied',
          `The sign-in was refused at the issuer${poll.detail ? ` (${poll.detail})` : ''}: no token was made`,
        );
      case 'expired_token':
        await this.signIns.take(handleHash);
        throw expired();
    }
    // the issuer gives a device code's tokens once; the handle is taken once too, whatever raced it
    if (!(await this.signIns.take(handleHash))) throw new NotFoundError(UNKNOWN, 'handle');
    const user = await this.people.signedIn(poll.identity, now);
    const issued = await this.people.commandLineToken(user, name, team);
    this.logger.log(`${user.name} signed in for the command line (device grant)`);
    return issued;
  }
}

function expired(): DeviceSignInEnded {
  return new DeviceSignInEnded(
    'expired_token',
    'The code expired before the sign-in was confirmed: no token was made; start it again (orbit login --sso)',
  );
}
