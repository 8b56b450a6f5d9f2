/** The simulated Redis master: what the simulation (and its tests) use of sim/master. */
export { SimMaster, type ConnectOptions, type SimMasterOptions } from './master.js';
export { ConnectionClosedError, SimConnection, type Push } from './connection.js';
export { RedisReplyError, type Reply } from './reply.js';
export type { KeyDump, SeedValue } from './inspect.js';
