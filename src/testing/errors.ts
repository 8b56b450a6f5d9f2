/** Errors raised by the local-masters harness (`pipelock/testing`); each has a stable `code`. */

/** The `redis-server` binary could not be executed. */
export class RedisServerNotFoundError extends Error {
  /** The class name, for logs. */
  override readonly name = 'RedisServerNotFoundError';
  /** A stable code to match on. */
  readonly code = 'ERR_REDIS_SERVER_NOT_FOUND';

  /** @param redisServer The binary that could not be executed. */
  constructor(readonly redisServer: string, options?: ErrorOptions) {
    super(
      `redis-server not found: could not execute ${JSON.stringify(redisServer)}; ` +
        'install it (apt-get install redis-server) or set PIPELOCK_REDIS_SERVER=/path/to/redis-server',
      options,
    );
  }
}

/** A server exited or stayed silent before answering PING; `logTail` is the end of its output. */
export class MasterStartError extends Error {
  /** The class name, for logs. */
  override readonly name = 'MasterStartError';
  /** A stable code to match on. */
  readonly code = 'ERR_MASTER_START_FAILED';

  /**
   * @param port The port the server was to listen on.
   * @param logTail The end of the server's output.
   */
  constructor(reason: string, readonly port: number, readonly logTail: string, options?: ErrorOptions) {
    super(`redis-server on port ${port} ${reason}${logTail ? `; its output ends with:\n${logTail}` : ''}`, options);
  }
}

/** An option or argument broke its rule; `option` names it, as it is spelled in the call. */
export class InvalidOptionError extends TypeError {
  /** The class name, for logs. */
  override readonly name = 'InvalidOptionError';
  /** A stable code to match on. */
  readonly code = 'ERR_INVALID_OPTION';

  /**
   * @param option The option or argument, as spelled in the call.
   * @param rule What its value must be.
   */
  constructor(readonly option: string, readonly rule: string, value: unknown) {
    super(`${option} must be ${rule}, got ${show(value)}`);
  }
}

/** An operation needs a state the master is not in (pause while stopped, restart after close). */
export class MasterStateError extends Error {
  /** The class name, for logs. */
  override readonly name = 'MasterStateError';
  /** A stable code to match on. */
  readonly code = 'ERR_MASTER_STATE';
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
