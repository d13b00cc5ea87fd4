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
 * Worker options of the background threads: their stdout and stderr are not piped into the
 * process's. Node pipes a worker's output through stream objects in the main thread, and their
 * reads ran through the same stream functions (read, resume, flow) that every redirect's request
 * runs: V8 then compiled those for more object shapes than the server alone brings, with slower
 * property loads on the redirect path (docs/benchmarks.md, twelfth session). The threads report
 * failures through messages and print nothing; their warnings are dropped (quietThread), as the same
 * store code prints its warnings in the main thread.
 */
export const UNPIPED_STDIO = { stdout: true, stderr: true } as const;

/**
 * Called first in a background thread: Node would print a warning to the thread's stderr, which
 * nobody reads (UNPIPED_STDIO) and which would hold it in memory.
 */
export function quietThread(): void {
  process.removeAllListeners('warning');
}

/** quietThread for a thread started from source text (checkpointer.ts). */
export const QUIET_THREAD_SOURCE = `(${quietThread.toString()})();`;
