// cluster-key-slot ships no types; this is the one function pipelock calls.
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (CRC16 of the key or its `{hash tag}`, mod 16384). */
  function calculateSlot(key: string): number;
  export default calculateSlot;
}
