import crypto from 'node:crypto';
import { networkOf } from '../platform/network.js';
import { ResettingCache } from '../platform/resetting-cache.js';
import { utcDay } from '../platform/time.js';

/**
 * Unique visitors per day, approximate and private (docs/adr/0067). A visitor is its network and user
 * agent, hashed with a salt that lives in this process's memory for one UTC day and is never stored;
 * only a 32-bit code of that hash is kept until the flush adds it to a HyperLogLog sketch.
 *
 * HyperLogLog by hand (Flajolet et al., 2007, with linear counting for small sets): about forty lines,
 * where the packages on npm hash with their own functions, keep sketches as JSON, or build native
 * code. 2^12 registers: a standard error of 1.04 / 64 = 1.6%.
 */
export const REGISTERS = 4096;
const INDEX_BITS = 12;

/** The visitor code of a network and user agent under the day's salt: a new salt each UTC day. */
export class VisitorCodes {
  private day = '';
  private salt: Buffer = Buffer.alloc(0);
  private codes = new ResettingCache<number>(50_000);

  constructor(private readonly randomBytes: (n: number) => Buffer = crypto.randomBytes) {}

  code(address: string, userAgent: string, time: number): number {
    const day = utcDay(time);
    if (day !== this.day) {
      this.day = day;
      this.salt = this.randomBytes(32);
      this.codes = new ResettingCache<number>(50_000);
    }
    const key = `${networkOf(address)}\n${userAgent.slice(0, 512)}`;
    let code = this.codes.get(key);
    if (code === undefined) {
      code = crypto.createHash('sha256').update(this.salt).update(key).digest().readUInt32BE(0);
      this.codes.set(key, code);
    }
    return code;
  }
}

/** A code's register (its first 12 bits) and rank (the position of the first 1 in the other 20). */
export function register(code: number): [index: number, rank: number] {
  return [code >>> (32 - INDEX_BITS), Math.min(Math.clz32(code << INDEX_BITS) + 1, 32 - INDEX_BITS + 1)];
}

/** A sketch's registers, merged by taking the larger rank of each. */
export type Registers = Map<number, number>;

export function merge(into: Registers, from: Registers): boolean {
  let changed = false;
  for (const [index, rank] of from) {
    if ((into.get(index) ?? 0) < rank) {
      into.set(index, rank);
      changed = true;
    }
  }
  return changed;
}

/** Whether `sketch` holds every register of `registers` at least as high. */
export function covers(sketch: Registers, registers: Registers): boolean {
  for (const [index, rank] of registers) if ((sketch.get(index) ?? 0) < rank) return false;
  return true;
}

/** The estimated number of distinct visitors. */
export function estimate(sketch: Registers): number {
  if (sketch.size === 0) return 0;
  let sum = REGISTERS - sketch.size;
  for (const rank of sketch.values()) sum += 2 ** -rank;
  const raw = ((0.7213 / (1 + 1.079 / REGISTERS)) * REGISTERS * REGISTERS) / sum;
  const empty = REGISTERS - sketch.size;
  // Small sets: linear counting from the empty registers is the better estimate.
  return Math.round(raw <= 2.5 * REGISTERS && empty > 0 ? REGISTERS * Math.log(REGISTERS / empty) : raw);
}

/** Stored form: three bytes per register set (12 bits of index, then the rank), in index order. */
export function encode(sketch: Registers): Buffer {
  const out = Buffer.alloc(3 * sketch.size);
  let at = 0;
  for (const index of [...sketch.keys()].sort((a, b) => a - b)) {
    out.writeUIntBE(index * 256 + sketch.get(index)!, at, 3);
    at += 3;
  }
  return out;
}

export function decode(stored: Uint8Array): Registers {
  const sketch: Registers = new Map();
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  for (let at = 0; at + 3 <= bytes.length; at += 3) {
    const value = bytes.readUIntBE(at, 3);
    sketch.set(Math.floor(value / 256), value % 256);
  }
  return sketch;
}
