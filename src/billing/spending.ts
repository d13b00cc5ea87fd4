import type { CreditStore, ReservationRequest } from './ports.js';

/** How long a reservation may wait for its commit before the sweeper gives it back. */
export const RESERVATION_TTL_MS = 60_000;

/**
 * Reserve, run the purchase (which commits the reservation in its own transaction), and release
 * whatever was not committed: on failure, on a replay that bought nothing, on anything. Release is a
 * guarded no-op once committed. If even the release fails (database gone), the sweeper releases the
 * reservation when it expires, so credits are held for a minute at worst, never lost or spent twice.
 */
export async function withReservation<T>(
  credits: CreditStore,
  request: Omit<ReservationRequest, 'ttlMs'>,
  purchase: (reservationId: string) => Promise<T>,
): Promise<T> {
  const reservationId = await credits.reserve({ ...request, ttlMs: RESERVATION_TTL_MS });
  try {
    return await purchase(reservationId);
  } finally {
    await credits.release(reservationId).catch(() => {});
  }
}
