import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryEventStore } from "@agentloop/core";
import { JsonlEventStore } from "@agentloop/core/jsonl-store";
import type { SpendLedger } from "@agentloop/core/store";
import { describeSpendLedger } from "../src/index.js";

describeSpendLedger("MemoryEventStore", () => {
  const ledger = new MemoryEventStore().spending;
  return { open: () => ledger };
});

describeSpendLedger("JsonlEventStore", () => {
  const directory = mkdtempSync(join(tmpdir(), "agentloop-spending-"));
  return {
    open: () => new JsonlEventStore(directory).spending as SpendLedger,
    close: () => rmSync(directory, { recursive: true, force: true }),
  };
});
