import crypto from 'node:crypto';

/** One answer the load got: status 0 is no answer at all (connection refused or reset, or a hang). */
export interface Answer {
  kind: LoadKind;
  status: number;
  retryAfter: string | null;
  body: string;
  at: number;
}

export type LoadKind = 'read' | 'create' | 'redirect';

/** The status each kind answers when the service works. */
export const SUCCESS: Record<LoadKind, number> = { read: 200, create: 200, redirect: 302 };

/** A request that hangs this long counts as no answer: the service must answer, even if only 503. */
const REQUEST_TIMEOUT_MS = 20_000;
/** Pause between one loop's requests: load, without taking both of a shared machine's cores. */
const PACE_MS = 15;

export interface Target {
  baseUrl: string;
  key: string;
  linkId: string;
  slug: string;
}

/** One request of the kind, answered or not; never throws. */
export async function ask(kind: LoadKind, t: Target): Promise<Answer> {
  const at = Date.now();
  const headers: Record<string, string> = { authorization: `Bearer ${t.key}` };
  let url = `${t.baseUrl}/api/v1/links/${t.linkId}`;
  let init: RequestInit = { headers };
  if (kind === 'redirect') {
    url = `${t.baseUrl}/s/${t.slug}`;
    init = {};
  } else if (kind === 'create') {
    url = `${t.baseUrl}/api/v1/links`;
    const body = JSON.stringify({ target: `https://example.org/${crypto.randomUUID()}` });
    init = { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() } };
  }
  try {
    const res = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return { kind, status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text(), at };
  } catch (error) {
    return { kind, status: 0, retryAfter: null, body: String((error as Error).cause ?? error), at };
  }
}

/**
 * Concurrent API reads, link creations and redirects of one (cached) link, each kind in loops of its
 * own, until stopped; every answer is kept.
 */
export class Load {
  readonly answers: Answer[] = [];
  private running = true;
  private readonly loops: Promise<void>[];

  constructor(target: Target, loops: Record<LoadKind, number> = { read: 2, create: 1, redirect: 3 }) {
    const kinds = (Object.keys(loops) as LoadKind[]).flatMap((kind) => Array.from({ length: loops[kind] }, () => kind));
    this.loops = kinds.map((kind) => this.loop(kind, target));
  }

  /** Answers to requests sent at or after `from`. */
  since(from: number, kind?: LoadKind): Answer[] {
    return this.answers.filter((a) => a.at >= from && (kind === undefined || a.kind === kind));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(kind: LoadKind, target: Target): Promise<void> {
    while (this.running) {
      this.answers.push(await ask(kind, target));
      await new Promise((resolve) => setTimeout(resolve, PACE_MS));
    }
  }
}

/** Answers other than success or a well-formed 503 links_unavailable with Retry-After, described. */
export function unexpected(answers: Answer[]): string[] {
  return answers
    .filter((a) => {
      if (a.status === SUCCESS[a.kind]) return false;
      return !(a.status === 503 && a.body === '{"error":"links_unavailable"}' && a.retryAfter !== null && /^\d+$/.test(a.retryAfter));
    })
    .map((a) => `${a.kind} ${a.status} retry-after=${a.retryAfter} ${a.body.slice(0, 200)}`);
}

/** Polls until `check` holds, or fails with `what` after the deadline. */
export async function until(what: string, check: () => Promise<boolean> | boolean, deadlineMs = 15_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
