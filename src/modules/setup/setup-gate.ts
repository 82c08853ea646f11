// The first run of an empty install: a server that finds no user makes a one-time setup token,
// prints the link that carries it, and keeps only its SHA-256 digest. The token opens
// `POST /api/setup/` until the first account exists; a restart makes a new one.
import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { SetupTokenCheck } from '../../deps.ts';
import { anyUserExists } from '../users/users.repository.ts';

/** 24 random bytes (192 bits), URL-safe. */
const TOKEN_BYTES = 24;

const digestOf = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest();

export class SetupGate implements SetupTokenCheck {
  #digest: Buffer | null;

  private constructor(digest: Buffer) {
    this.#digest = digest;
  }

  /** A new token and the hex digest a fleet's primary hands its workers (HERD_SETUP_DIGEST). */
  static newToken(): { token: string; digest: string } {
    const token = crypto.randomBytes(TOKEN_BYTES).toString('base64url');
    return { token, digest: digestOf(token).toString('hex') };
  }

  /**
   * A gate, or null when the database holds a user. Without `digest` it makes a token (which
   * nothing keeps: print it now); with one (a fleet's worker) it checks that digest's token, and
   * the primary that made it prints the link.
   */
  static async open(db: Db, digest: string | null = null): Promise<{ gate: SetupGate; token: string | null } | null> {
    if (await anyUserExists(db)) return null;
    if (digest !== null) return { gate: new SetupGate(Buffer.from(digest, 'hex')), token: null };
    const { token, digest: made } = SetupGate.newToken();
    return { gate: new SetupGate(Buffer.from(made, 'hex')), token };
  }

  get isOpen(): boolean {
    return this.#digest !== null;
  }

  /** Whether `token` is this gate's, compared in constant time. */
  matches(token: unknown): boolean {
    if (this.#digest === null || typeof token !== 'string') return false;
    return crypto.timingSafeEqual(digestOf(token), this.#digest);
  }

  /** Forgets the digest for good: an account exists. */
  close(): void {
    this.#digest = null;
  }
}
