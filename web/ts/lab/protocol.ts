// The lab.* messages (web/PROTOCOL.md, "The config lab"; Go side: wasm/bridge/labmsg). Their
// types are generated from the Go types into protocol_gen.ts (go run ./web/cmd/tsgen), which
// also adds them to the playground's Messages, so the shared WorkerClient types them.

import type { WorkerClient } from "../protocol";

export type * from "./protocol_gen";

export type Client = WorkerClient;
