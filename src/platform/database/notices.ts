import pg from 'pg';

/** The channel the change feed's trigger notifies on, with the slug as payload (migration 0018). */
export const LINK_CHANGES_CHANNEL = 'link_changes';

export interface NoticeHandlers {
  /** A payload notified on the channel by any connection to the database, once its transaction committed. */
  notice(payload: string): void;
  /** The listening connection is in place (again): what was notified while it was not is lost. */
  listening(): void;
  /** The connection could not be made or was lost; it is tried again after a pause. */
  lost(error: unknown): void;
}

export interface NoticeListener {
  /** Whether notices arrive now. */
  readonly listening: boolean;
  close(): Promise<void>;
}

const RETRY_FIRST_MS = 500;
const RETRY_LONGEST_MS = 30_000;

/**
 * PostgreSQL's LISTEN on a connection of its own, outside the pool (a pooled connection is handed to
 * other queries between two of ours, and a LISTEN lives as long as its connection). A lost connection
 * is made again after a pause that doubles up to 30 s; nothing here throws or ends the process.
 */
export function listenForNotices(url: string, channel: string, handlers: NoticeHandlers): NoticeListener {
  let client: pg.Client | undefined;
  let listening = false;
  let closed = false;
  let pause = RETRY_FIRST_MS;
  let retry: NodeJS.Timeout | undefined;

  const lose = (lost: pg.Client, error: unknown) => {
    if (client !== lost) return;
    client = undefined;
    listening = false;
    lost.end().catch(() => {});
    if (closed) return;
    handlers.lost(error);
    retry = setTimeout(connect, pause);
    retry.unref();
    pause = Math.min(pause * 2, RETRY_LONGEST_MS);
  };

  function connect(): void {
    // keepAlive: a connection cut without a FIN (a dead host, a partition) is noticed by the kernel.
    const connection = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true });
    client = connection;
    connection.on('error', (error) => lose(connection, error));
    connection.on('end', () => lose(connection, new Error('the listening connection ended')));
    connection.on('notification', ({ channel: from, payload }) => {
      if (from === channel && payload !== undefined) handlers.notice(payload);
    });
    connection
      .connect()
      .then(() => connection.query(`LISTEN ${channel}`))
      .then(
        () => {
          if (client !== connection) return;
          listening = true;
          pause = RETRY_FIRST_MS;
          handlers.listening();
        },
        (error: unknown) => lose(connection, error),
      );
  }

  connect();
  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const open = client;
      client = undefined;
      listening = false;
      await open?.end().catch(() => {});
    },
  };
}
