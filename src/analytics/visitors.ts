import crypto from 'node:crypto';
import { networkOf } from '../platform/network.js';
import { ResettingCache } from '../platform/resetting-cache.js';
import { DAY_MS, utcDay } from '../platform/time.js';

/**
 * Unique visitors per day, approximate and private (ADR 0067): a visitor is a 32-bit code of its network and user agent hashed with the
 * UTC day's salt, HMAC-SHA256(deployment secret, day), which every instance derives alike (so sketches merge) and which is never stored.
 * HyperLogLog by hand (Flajolet et al., 2007, with linear counting for small sets) in about forty lines: npm packages hash with their own
 * functions, keep sketches as JSON, or build native code. 2^12 registers give a standard error of 1.04 / 64 = 1.6%.
 */
export const REGISTERS = 4096;
const INDEX_BITS = 12;

/** The visitor code of a network and user agent under the day's salt: a new salt each UTC day. */
export class VisitorCodes {
  /** The UTC day (days since 1970) of the salt. */
  private day = NaN;
  private salt: Buffer = Buffer.alloc(0);
  private codes = new ResettingCache<number>(50_000);

  /** `secret` is `network_secret` (settings-store.ts), which also hashes bare networks: the "visitors " prefix keeps the two uses apart. */
  constructor(private readonly secret: string) {}

  code(address: string, userAgent: string, time: number): number {
    const day = Math.floor(time / DAY_MS);
    if (day !== this.day) {
      this.day = day;
      this.salt = crypto
        .createHmac('sha256', this.secret)
        .update(`visitors ${utcDay(time)}`)
        .digest();
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

/** A sketch: the highest rank seen in each of its registers, 0 where no code fell yet. */
export type Sketch = Uint8Array;
export const emptySketch = (): Sketch => new Uint8Array(REGISTERS);

/** A code's register (its first 12 bits) and rank (the position of the first 1 in the other 20). */
const indexOf = (code: number) => code >>> (32 - INDEX_BITS);
const rankOf = (code: number) => Math.min(Math.clz32(code << INDEX_BITS) + 1, 32 - INDEX_BITS + 1);

/** Adds codes to a sketch; whether any register rose. */
export function add(sketch: Sketch, codes: readonly number[]): boolean {
  let changed = false;
  for (const code of codes) {
    if (sketch[indexOf(code)]! < rankOf(code)) {
      sketch[indexOf(code)] = rankOf(code);
      changed = true;
    }
  }
  return changed;
}

/** Merges a stored sketch into `into` without decoding it first: the sketch of the union. */
export function mergeStored(into: Sketch, stored: Uint8Array): void {
  if (stored.length === REGISTERS) return merge(into, stored);
  for (let at = 0; at + 3 <= stored.length; at += 3) {
    const index = (stored[at]! << 8) | stored[at + 1]!;
    if (into[index]! < stored[at + 2]!) into[index] = stored[at + 2]!;
  }
}

export function merge(into: Sketch, from: Sketch): void {
  for (let i = 0; i < REGISTERS; i++) if (into[i]! < from[i]!) into[i] = from[i]!;
}

const INVERSE = Float64Array.from({ length: 34 - INDEX_BITS }, (_, rank) => 2 ** -rank);

export function estimate(sketch: Sketch): number {
  let sum = 0;
  let empty = 0;
  for (let i = 0; i < REGISTERS; i++) {
    sum += INVERSE[sketch[i]!]!;
    if (sketch[i] === 0) empty++;
  }
  if (empty === REGISTERS) return 0;
  const raw = ((0.7213 / (1 + 1.079 / REGISTERS)) * REGISTERS * REGISTERS) / sum;
  // Small sets: linear counting from the empty registers is the better estimate.
  return Math.round(raw <= 2.5 * REGISTERS && empty > 0 ? REGISTERS * Math.log(REGISTERS / empty) : raw);
}

/*
 * Stored form: while shorter, three bytes per register set (12 bits of index, then the rank) in index order, else the 4,096 ranks.
 * A quiet link's day is then a few bytes, and a flush works on the stored bytes at a cost that follows the registers set.
 */

function storedRank(stored: Uint8Array, index: number): number {
  if (stored.length === REGISTERS) return stored[index]!;
  let [low, high] = [0, stored.length / 3 - 1];
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = (stored[3 * middle]! << 8) | stored[3 * middle + 1]!;
    if (at === index) return stored[3 * middle + 2]!;
    if (at < index) low = middle + 1;
    else high = middle - 1;
  }
  return 0;
}

/** A stored sketch with the codes added, or undefined when they raise no register. */
export function addStored(stored: Uint8Array, codes: readonly number[]): Uint8Array | undefined {
  const rising = codes.filter((code) => storedRank(stored, indexOf(code)) < rankOf(code));
  if (rising.length === 0) return undefined;
  if (stored.length === REGISTERS) {
    const sketch = new Uint8Array(stored);
    add(sketch, rising);
    return sketch;
  }
  const registers = new Map<number, number>();
  for (let at = 0; at < stored.length; at += 3) registers.set((stored[at]! << 8) | stored[at + 1]!, stored[at + 2]!);
  for (const code of rising) registers.set(indexOf(code), Math.max(registers.get(indexOf(code)) ?? 0, rankOf(code)));
  return encodeRegisters(registers);
}

function encodeRegisters(registers: Map<number, number>): Uint8Array {
  if (3 * registers.size >= REGISTERS) {
    const sketch = emptySketch();
    for (const [index, rank] of registers) sketch[index] = rank;
    return sketch;
  }
  const out = new Uint8Array(3 * registers.size);
  let at = 0;
  for (const index of [...registers.keys()].sort((a, b) => a - b)) {
    out.set([index >> 8, index & 255, registers.get(index)!], at);
    at += 3;
  }
  return out;
}

export function encode(sketch: Sketch): Uint8Array {
  const set = sketch.reduce((n, rank) => (rank > 0 ? n + 1 : n), 0);
  if (3 * set >= REGISTERS) return new Uint8Array(sketch);
  const registers = new Map<number, number>();
  sketch.forEach((rank, index) => rank > 0 && registers.set(index, rank));
  return encodeRegisters(registers);
}

export function decode(stored: Uint8Array): Sketch {
  const sketch = emptySketch();
  mergeStored(sketch, stored);
  return sketch;
}

/** A link and day's four sketches (one per column) in one stored value: each in its stored form, after its length in two bytes. */
export function packSketches(sketches: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(sketches.reduce((n, s) => n + 2 + s.length, 0));
  let at = 0;
  for (const sketch of sketches) {
    out[at] = sketch.length >> 8;
    out[at + 1] = sketch.length & 255;
    out.set(sketch, at + 2);
    at += 2 + sketch.length;
  }
  return out;
}

export function unpackSketches(packed: Uint8Array): Uint8Array[] {
  const sketches: Uint8Array[] = [];
  for (let at = 0; at + 2 <= packed.length;) {
    const length = (packed[at]! << 8) | packed[at + 1]!;
    sketches.push(packed.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return sketches;
}
