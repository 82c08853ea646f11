// Personal API key material: generation, the stored SHA-256 form, the mask shown after creation.
import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomBase62(bytes: number): string {
  let value = BigInt(`0x${crypto.randomBytes(bytes).toString('hex')}`);
  let out = '';
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(Math.ceil((bytes * 8) / Math.log2(62)), '0');
}

export const generatePersonalApiKey = () => `phx_${randomBase62(35)}`;
export const generateProjectToken = () => `phc_${randomBase62(32)}`;

export const hashApiKey = (raw: string) => crypto.createHash('sha256').update(raw, 'utf8').digest('hex');

export const maskApiKey = (raw: string) => `${raw.slice(0, 4)}...${raw.slice(-4)}`;

/** Compares two hex digests in constant time. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
