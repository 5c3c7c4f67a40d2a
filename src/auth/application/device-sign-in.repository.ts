/** A sign-in of the command line through the issuer's device grant, as Orbit keeps it between polls. */
export interface DeviceSignIn {
  /** The hash of the handle the command line holds. */
  handleHash: string;
  /** The issuer's device code: it never leaves Orbit. */
  deviceCode: string;
  nonce: string;
  intervalSeconds: number;
  /** The issuer may be asked again from then on; a poll before it is told to slow down. */
  nextPollAt: Date;
  expiresAt: Date;
  createdAt: Date;
}

/** Where a poll stands before the issuer is asked. */
export type DevicePollClaim =
  | { kind: 'claimed'; signIn: DeviceSignIn }
  | { kind: 'early'; signIn: DeviceSignIn }
  | { kind: 'expired' }
  | { kind: 'unknown' };

export abstract class DeviceSignInRepository {
  /** Keeps a started sign-in; those expired before `signIn.createdAt` go. */
  abstract save(signIn: DeviceSignIn): Promise<void>;

  /**
   * The sign-in of this handle, claimed for one poll when its next poll is due (it then moves one
   * interval ahead, so two polls at once cannot both reach the issuer); an expired one is dropped.
   */
  abstract claimPoll(handleHash: string, now: Date): Promise<DevicePollClaim>;

  /** A longer interval from now on (RFC 8628 slow_down). */
  abstract slowDown(handleHash: string, intervalSeconds: number, now: Date): Promise<void>;

  /** Takes the sign-in once: false when it was taken (or dropped) already. */
  abstract take(handleHash: string): Promise<boolean>;
}
