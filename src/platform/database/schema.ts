import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Table types, snake_case as in SQL. Timestamps are Unix milliseconds in integer columns on both
 * databases; booleans are 0/1 integers on both so that one mapper serves both.
 */
export interface AccountTable {
  id: string;
  email: string;
  purchased_balance: number;
  /** Sum of active reservations; available = purchased_balance - reserved_credits. */
  reserved_credits: number;
  created_at: number;
  /** scrypt hash (src/accounts/passwords.ts); null for an account nobody can sign in to. */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the email was verified; null until then. */
  verified_at: ColumnType<number | null, number | null | undefined, number | null>;
  /** 1 for an operator, who may open the operator console (`accounts make-operator`). */
  operator: Generated<number>;
  /** Two-factor sign-in (src/accounts/two-factor.ts): the confirmed TOTP secret, the one being set up, the last step used. */
  totp_secret: ColumnType<string | null, string | null | undefined, string | null>;
  totp_pending_secret: ColumnType<string | null, string | null | undefined, string | null>;
  totp_last_step: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface ApiKeyTable {
  id: string;
  account_id: string;
  name: string | null;
  key_hash: string;
  scopes: string;
  budget: number | null;
  created_at: number;
  revoked_at: number | null;
  /** The first characters of the key and its last four, for people to recognise it; null on older keys. */
  prefix: ColumnType<string | null, string | null | undefined, string | null>;
  last4: ColumnType<string | null, string | null | undefined, string | null>;
  last_used_at: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface LinkTable {
  id: string;
  account_id: string | null;
  slug: string;
  target: string;
  title: string;
  tags: string;
  status: string;
  version: number;
  trial: number;
  expires_at: number | null;
  trial_token_hash: string | null;
  created_at: number;
  updated_at: number;
  /** Visits recorded (added to by every visit flush, src/analytics/store/rollups.ts). */
  visits: Generated<number>;
  /** While suspended: the status restore gives back (`active` or `paused`); null otherwise. */
  status_before_suspension: ColumnType<string | null, string | null | undefined, string | null>;
  /** A trial link's network (its salted hash), so that a network's trial links of a day can be suspended together; null otherwise. */
  trial_network: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Links created per account and UTC month ('2026-11'): the shared free allowance counter. */
export interface AccountMonthTable {
  account_id: string;
  month: string;
  links_created: number;
}

/** Trial links per network and UTC day; the network is a salted hash, never the address. */
export interface TrialDayTable {
  network: string;
  day: string;
  links_created: number;
}

export interface IdempotencyTable {
  id: string;
  fingerprint: string;
  network: string;
  day: string;
  response: string;
  sealed_secret: string | null;
  created_at: number;
}

export interface CreditLedgerTable {
  id: string;
  account_id: string;
  kind: string;
  amount: number;
  balance_after: number;
  reference: string | null;
  created_at: number;
}

export interface CreditReservationTable {
  id: string;
  account_id: string;
  /** Null for a session's spend, which no key budget limits. */
  key_id: string | null;
  month: string;
  amount: number;
  purpose: string;
  /** active → committed (spent with its link or pack) or released (failure, crash, expiry). */
  status: string;
  created_at: number;
  expires_at: number;
}

/** Credits a key spent (or holds reserved) in a UTC month, against its budget. */
export interface KeyMonthTable {
  key_id: string;
  month: string;
  spent: number;
}

export interface CapacityPackTable {
  id: string;
  account_id: string;
  status: string;
  credits: number;
  visits: number;
  visits_used: number;
  created_at: number;
  refunded_at: number | null;
}

export interface LinkChangeTable {
  id: string;
  slug: string;
  changed_at: number;
}

/** Website sessions: only the SHA-256 of the cookie token is kept (src/accounts/sessions.ts). */
export interface SessionTable {
  id: string;
  token_hash: string;
  account_id: string;
  created_at: number;
  last_seen_at: number;
  /** The absolute expiry; the idle one is last_seen_at plus the idle time. */
  expires_at: number;
}

/** One-time verification and reset tokens, by their SHA-256 (src/accounts/credential-store.ts). */
export interface AccountTokenTable {
  token_hash: string;
  account_id: string;
  purpose: string;
  /** The password chosen with a sign-up, which verifying the address makes the account's. */
  password_hash: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A domain no link may point to, nor any of its subdomains (src/safety/blocklist.ts). */
export interface BlockedDomainTable {
  domain: string;
  created_at: number;
}

/** A report of a link by anyone; the reporter's network only as its salted hash. */
export interface ReportTable {
  id: string;
  link_id: string;
  /** The URL as the reporter gave it. */
  url: string;
  reason: string;
  network: string;
  /** open → suspended (the link was suspended) or dismissed. */
  status: string;
  created_at: number;
  resolved_at: number | null;
}

/** Every operator action, from the console or the CLI: who, what, on what, when. */
export interface AuditLogTable {
  /** Rises with every entry: the order of entries, even within one millisecond. */
  seq: Generated<number>;
  at: number;
  /** The operator's email, or `cli`. */
  actor: string;
  action: string;
  /** What it was done to: a link, an account, a report or a domain. */
  subject: string;
  /** JSON: what else the action took (credits granted, links suspended). */
  details: string;
}

/** One-time codes that stand in for a TOTP code, by their SHA-256. */
export interface RecoveryCodeTable {
  account_id: string;
  code_hash: string;
  used_at: number | null;
}

/** A link's saved QR design, as JSON (src/qr/design-store.ts). */
export interface QrDesignTable {
  link_id: string;
  design: string;
  updated_at: number;
}

export interface SettingTable {
  name: string;
  value: string;
}

// Visit recording (src/analytics).
/**
 * A link's counts and unique-visitor sketches of one UTC day, as one writer (an instance, until it
 * forgets its tallies) counted them: `counts` is JSON, per dimension `[value, s, q, s_bot, q_bot, …]`;
 * `visitors` the four sketches, packed (src/analytics/counts.ts, visitors.ts). Reads add the writers up.
 */
export interface VisitTallyTable {
  link_id: string;
  day: string;
  writer: string;
  /** Rises on every write of the row (migration 0081). */
  version: number;
  counts: string;
  visitors: Uint8Array;
}

/** Closed days' summaries (level 0) and blocks of days added up (level ≥ 1), per link (migration 0082). */
export interface VisitSumTable {
  link_id: string;
  level: number;
  start: string;
  version: number;
  summary: Uint8Array | null;
  counts: string | null;
}

/** Visits recorded per UTC day, service-wide: people's against TRACKING_DAILY_LIMIT, bots' against their own. */
export interface VisitDayTable {
  day: string;
  recorded: number;
  bots: number;
  last_grant: number;
}

export interface VisitMonthTable {
  account_id: string;
  month: string;
  /** Visits recorded for the account this UTC month, free and from packs. */
  recorded: number;
  free_used: number;
  last_grant: number;
}

export interface VisitGapTable {
  id: string;
  link_id: string | null;
  reason: string;
  from_ms: number;
  to_ms: number;
}

export interface RecorderInstanceTable {
  id: string;
  started_at: number;
  beat_at: number;
  flushed_to: number;
  /** The writer of its tallies' rows (analytics/counts.ts); null for an instance from before 0084. */
  writer: string | null;
}

/** A committed flush of a running instance, by its number (analytics/store/recording-store.ts, settle). */
export interface RecorderFlushTable {
  instance_id: string;
  flush: number;
  /** The flush's time. */
  at: number;
}

export interface DB {
  accounts: AccountTable;
  api_keys: ApiKeyTable;
  links: LinkTable;
  account_months: AccountMonthTable;
  trial_days: TrialDayTable;
  idempotency_keys: IdempotencyTable;
  credit_ledger: CreditLedgerTable;
  credit_reservations: CreditReservationTable;
  key_months: KeyMonthTable;
  capacity_packs: CapacityPackTable;
  settings: SettingTable;
  link_changes: LinkChangeTable;
  sessions: SessionTable;
  account_tokens: AccountTokenTable;
  blocked_domains: BlockedDomainTable;
  reports: ReportTable;
  audit_log: AuditLogTable;
  recovery_codes: RecoveryCodeTable;
  qr_designs: QrDesignTable;
  visit_tallies: VisitTallyTable;
  visit_sums: VisitSumTable;
  visit_days: VisitDayTable;
  visit_months: VisitMonthTable;
  visit_gaps: VisitGapTable;
  recorder_instances: RecorderInstanceTable;
  recorder_flushes: RecorderFlushTable;
}

export type Account = Selectable<AccountTable>;
export type ApiKey = Selectable<ApiKeyTable>;
export type NewApiKey = Insertable<ApiKeyTable>;
export type LinkRow = Selectable<LinkTable>;
export type NewLink = Insertable<LinkTable>;
export type LinkUpdate = Updateable<LinkTable>;
