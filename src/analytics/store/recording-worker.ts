/**
 * The recording thread (recording-thread.ts): a recording loop on its own database connection, at a
 * lower scheduling priority than the event loop. Requests are handled one at a time, in order.
 */
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { DayVisits } from '../day-visits.js';
import type { LinkTable } from '../link-table.js';
import { RecordingLoop, type RecordingActivity } from '../recording-loop.js';
import { quietThread } from '../../platform/database/background-threads.js';
import { openDatabase } from '../../platform/database/database.js';
import { describeError, type ErrorReport, type Reply, type Request, type WorkerData } from './recording-thread.js';
import { KyselyVisitStore } from './visit-store.js';

const { databaseUrl, giveWayTo, settings, instanceId, nice } = workerData as WorkerData;
quietThread();
const port = parentPort!;
const send = (reply: Reply) => port.postMessage(reply);

// On Linux a thread's nice value is its own (background-threads.ts).
try {
  os.setPriority(nice);
} catch {
  // Not permitted here: the thread runs at the process's priority.
}
// The server migrated the schema before starting this thread; checkpoints are the server's too.
const database = await openDatabase(databaseUrl, { migrate: false, checkpoints: false, giveWayTo });
/** Flushes and roll-ups that ended since the last answer, sent with the next one (the server's /metrics). */
let activities: RecordingActivity[] = [];
const loop = new RecordingLoop({
  ...settings,
  instanceId,
  store: new KyselyVisitStore(database),
  onError: (error) => send({ report: describeError(error) }),
  onActivity: (activity) => activities.push(activity),
});
port.on('messageerror', (error) => send({ report: describeError(error) }));

/** Mirrors of the recorder's link tables (link-table.ts); only the newest is extended. */
const tables = new Map<number, LinkTable>();

/** The request's day buffers; those whose links this thread cannot read are lost (a gap), and resync asked for. */
function daysOf(request: Request): { days: DayVisits[]; resync: boolean } {
  const days: DayVisits[] = [];
  let resync = false;
  for (const d of request.days) {
    try {
      days.push(DayVisits.fromMessage(d, tables));
    } catch (error) {
      resync = true;
      loop.lose(d.count, d.from, request.now);
      send({ report: describeError(error) });
    }
  }
  const newest = Math.max(...tables.keys());
  for (const id of tables.keys()) if (id < newest) tables.delete(id);
  return { days, resync };
}

let queue = Promise.resolve();
port.on('message', (request: Request) => {
  queue = queue.then(async () => {
    let error: ErrorReport | undefined;
    let resync = false;
    try {
      const read = daysOf(request);
      resync = read.resync;
      const handover = { now: request.now, days: read.days, dropped: request.dropped };
      if (request.op === 'start') await loop.start(request.now);
      else await loop[request.op](handover);
    } catch (e) {
      error = describeError(e);
    }
    try {
      if (request.op === 'stop') await database.close();
    } catch (e) {
      error ??= describeError(e);
    } finally {
      // Always answered, and after stop the thread always ends: the server's shutdown waits for it.
      send({ id: request.id, released: loop.released, durableAt: loop.durableAt, resync, error, activities });
      activities = [];
      if (request.op === 'stop') port.close();
    }
  });
});
