import type { Command } from '../command.js';
import { Fail, OK, SYNTAX, arityError, notSimulated, type Value } from '../reply.js';

/** CLIENT subcommands of Redis 7.0 that the simulation does not implement. */
const kOtherSubcommands = new Set([
  'caching', 'getname', 'getredir', 'help', 'id', 'info', 'kill', 'list', 'no-evict', 'pause', 'reply',
  'setinfo', 'setname', 'trackinginfo', 'unblock', 'unpause',
]);
const kTrackingOptions = new Set(['redirect', 'bcast', 'prefix', 'optin', 'optout', 'noloop']);

/** `CLIENT TRACKING on|off` in the default mode: what the watch connection sends (src/waiting/watch.ts). */
export const CLIENT: Command = {
  name: 'client', arity: -2, readonly: false, noscript: true,
  run(ctx, args): Value {
    const sub = args[1]!.toLowerCase();
    if (sub !== 'tracking') {
      if (kOtherSubcommands.has(sub)) return notSimulated(`CLIENT ${sub.toUpperCase()}`);
      return new Fail(`ERR unknown subcommand '${args[1]!.slice(0, 128)}'. Try CLIENT HELP.`);
    }
    if (args.length < 3) return arityError('client|tracking');
    if (args.length > 3) {
      const option = args[3]!.toLowerCase();
      return kTrackingOptions.has(option) ? notSimulated(`CLIENT TRACKING option '${option.toUpperCase()}'`) : SYNTAX;
    }
    const mode = args[2]!.toLowerCase();
    if (mode === 'on') ctx.session.tracking = true;
    else if (mode === 'off') ctx.session.tracking = false;
    else return SYNTAX;
    return OK;
  },
};
