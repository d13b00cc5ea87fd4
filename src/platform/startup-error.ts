/**
 * A reason the service or the CLI cannot start that the operator can fix (a database that cannot be
 * opened, a port in use): reported as its one-line message, without a stack trace, and a non-zero exit.
 */
export class StartupError extends Error {}
