import { promises as dns } from "node:dns";
import { connect, type LookupFunction } from "node:net";
import type { NetDeps } from "./types";

/**
 * The real network: one DNS lookup returning every address in the resolver's order, and a TCP
 * connect to one exact IP address. `connect` is only ever called with an IP literal, so Node does no
 * lookup of its own (a second lookup is what DNS rebinding exploits).
 */
export const defaultNet: NetDeps = {
  async lookup(hostname) {
    const answers = await dns.lookup(hostname, { all: true, verbatim: true });
    return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  },
  connect({ address, port, family }) {
    return connect({ host: address, port, family, lookup: refuseLookup });
  },
};

// Belt and braces: if a hostname ever reached `connect`, fail instead of resolving it unchecked.
const refuseLookup: LookupFunction = (hostname, _options, callback) => {
  callback(new Error(`source fetch: refusing an unchecked DNS lookup of ${hostname}`), "", 4);
};
