/**
 * The scheduling priority (nice) of the service's background threads: the recording thread
 * (recording-thread.ts) and SQLite's checkpoint thread (checkpointer.ts). Below the event loop's, so
 * on a busy core the kernel runs the redirects first and the background work in the time they leave,
 * yet high enough that it keeps up under full load: at 10 a thread gets about a tenth of a saturated
 * core (weight 110 against the event loop's 1024), at 19 about 1.5%, too little for recording at the
 * redirect benchmark's rate. On Linux a thread's nice value is its own, so setting it in a thread
 * leaves the event loop's thread as it is.
 */
export const BACKGROUND_NICE = 10;

/**
 * Worker options that leave a thread's stdout and stderr unpiped, and quietThread, which drops its
 * warnings. Only the recording thread (src/analytics/store/recording-thread.ts) still uses them; the
 * checkpoint thread's output is piped into the process's, as any worker's is.
 */
export const UNPIPED_STDIO = { stdout: true, stderr: true } as const;

/** Called first in a thread started with UNPIPED_STDIO, whose stderr nobody reads. */
export function quietThread(): void {
  process.removeAllListeners('warning');
}

/** quietThread for a thread started from source text. */
export const QUIET_THREAD_SOURCE = `(${quietThread.toString()})();`;
