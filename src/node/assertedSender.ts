// Until chain.ts and stateDump.ts import it from src/node/ethereumjs/.
export * from "./ethereumjs/assertedSender.ts";
