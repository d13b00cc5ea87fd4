import type { ErrorCode } from '../../../src/platform/errors.js';

/** Why a request failed: an error value of the API's catalog, or what the browser saw instead. */
export type FailureCode = ErrorCode | 'network' | 'unexpected';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: FailureCode,
    /** From Retry-After, in seconds, when the answer had one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(code);
  }
}

export interface RequestOptions {
  idempotencyKey?: string;
  /** The trial form sends no cookie: a trial link belongs to no account. */
  anonymous?: boolean;
  /** A trial link's token (kept in this browser), sent instead of any credentials to read that link. */
  trialToken?: string;
  signal?: AbortSignal;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Whom to tell that the session is gone (a 401 on a request made with it). */
let onSignedOut: () => void = () => {};
export function whenSignedOut(listener: () => void): void {
  onSignedOut = listener;
}

/**
 * Calls the API the programs call. State-changing requests always carry a JSON body (`{}` when there
 * is nothing to send): the server takes a session's writes only as same-origin JSON (CSRF).
 */
export async function api<T>(method: Method, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
  const response = await send(method, path, body, options, 'application/json');
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** The same request for an answer that is not JSON (an SVG image, a CSV file), as a Blob. */
export async function apiBlob(method: Method, path: string, body?: unknown, options: RequestOptions = {}): Promise<Blob> {
  return (await send(method, path, body, options, '*/*')).blob();
}

async function send(method: Method, path: string, body: unknown, options: RequestOptions, accept: string): Promise<Response> {
  const headers: Record<string, string> = { accept };
  if (method !== 'GET') headers['content-type'] = 'application/json';
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  if (options.trialToken !== undefined) headers['x-service-trial-token'] = options.trialToken;
  const anonymous = options.anonymous || options.trialToken !== undefined;
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      method,
      headers,
      body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
      credentials: anonymous ? 'omit' : 'same-origin',
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'network');
  }
  if (response.ok) return response;
  const failure = new ApiError(response.status, await errorValue(response), retryAfter(response.headers.get('retry-after')));
  if (failure.status === 401 && !anonymous && !path.startsWith('/auth/')) onSignedOut();
  throw failure;
}

async function errorValue(response: Response): Promise<FailureCode> {
  try {
    const body = (await response.json()) as { error?: unknown };
    return typeof body.error === 'string' ? (body.error as ErrorCode) : 'unexpected';
  } catch {
    return 'unexpected';
  }
}

/** Retry-After is either seconds or an HTTP date. */
export function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** One key per intended action; a retry of the same action sends the same key. */
export const newIdempotencyKey = (): string => crypto.randomUUID();
