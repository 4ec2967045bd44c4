// Which cluster slots a command touches, with ioredis's own key tables and slot hashing, so this
// endpoint agrees with the ioredis Cluster that routes its commands.
import { Command } from "ioredis";
import type { RedisCommand } from "./protocol";

export function keySlots(commands: RedisCommand[]): Set<number> {
  const slots = new Set<number>();
  for (const [name, ...args] of commands) {
    for (const key of new Command(name.toUpperCase(), args).getKeys()) {
      const slot = new Command("EXISTS", [key]).getSlot();
      if (slot !== null) slots.add(slot);
    }
  }
  return slots;
}
