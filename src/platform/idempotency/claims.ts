/** An Idempotency-Key claimed for one operation, and the result kept for its replays. */

export interface IdempotencyClaim {
  id: string;
  fingerprint: string;
  network: string;
  day: string;
  createdAt: number;
}

export interface StoredResult {
  fingerprint: string;
  network: string;
  day: string;
  response: string;
  sealedSecret: string | null;
}
