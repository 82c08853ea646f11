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

  /** A gate and its token (which nothing keeps: print it now), or null when the database holds a user. */
  static async open(db: Db): Promise<{ gate: SetupGate; token: string } | null> {
    if (await anyUserExists(db)) return null;
    const token = crypto.randomBytes(TOKEN_BYTES).toString('base64url');
    return { gate: new SetupGate(digestOf(token)), token };
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
