// `@sandbox-workers/core`: what a caller Worker imports. The client (runCode, getSandbox, the error classes) and the
// Sandbox Durable Object the caller exports and binds (`export { Sandbox } from "@sandbox-workers/core"`).
export * from "./client.js";
export { Sandbox } from "./sandbox.js";
// The seed's client exports the engine-side limit error too; ours is the one the runtime shim throws and catches.
export { ExecutionLimitError } from "./core.js";
