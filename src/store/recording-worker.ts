/**
 * The recording thread (recording-thread.ts): a recording loop on its own database connection, at a
 * lower scheduling priority than the event loop. Requests are handled one at a time, in order.
 */
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { DayVisits } from '../domain/analytics/day-visits.js';
import type { LinkTable } from '../domain/analytics/link-table.js';
import { RecordingLoop } from '../domain/analytics/recording-loop.js';
import { openDatabase } from './database.js';
import { describeError, type ErrorReport, type LoopSettings, type Reply, type Request } from './recording-thread.js';
import { KyselyVisitStore } from './visit-store.js';

const { databaseUrl, settings, instanceId, nice } = workerData as { databaseUrl: string; settings: LoopSettings; instanceId: string; nice: number };
const port = parentPort!;
const send = (reply: Reply) => port.postMessage(reply);

// On Linux a thread's nice value is its own (background-threads.ts).
try {
  os.setPriority(nice);
} catch {
  // Not permitted here: the thread runs at the process's priority.
}
// The server migrated the schema before starting this thread; checkpoints are the server's too.
const database = await openDatabase(databaseUrl, { migrate: false, checkpoints: false });
const loop = new RecordingLoop({ ...settings, instanceId, store: new KyselyVisitStore(database), onError: (error) => send({ report: describeError(error) }) });

/** Mirrors of the recorder's link tables (link-table.ts); only the newest is extended. */
const tables = new Map<number, LinkTable>();
let queue = Promise.resolve();
port.on('message', (request: Request) => {
  queue = queue.then(async () => {
    let error: ErrorReport | undefined;
    try {
      const handover = { now: request.now, days: request.days.map((d) => DayVisits.fromMessage(d, tables)), dropped: request.dropped };
      if (request.op === 'start') await loop.start(request.now);
      else await loop[request.op](handover);
    } catch (e) {
      error = describeError(e);
    }
    const newest = Math.max(...tables.keys());
    for (const id of tables.keys()) if (id < newest) tables.delete(id);
    if (request.op === 'stop') await database.close();
    send({ id: request.id, released: loop.released, error });
    if (request.op === 'stop') port.close();
  });
});
