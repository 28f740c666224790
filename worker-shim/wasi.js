// ./wasi (protocol §5.7): the WASI host of protocol §5.4 for an Engine written in JavaScript. The host itself --
// descriptors in their fixed order, the /stdlib archive, the /workspace mirror, the import policy, stdio capture and
// its limits, the fuel meter -- is C++ in the core (cpp/wasi); this module creates one and marshals. See
// docs/engine-authors.md.
import { getCore, ExecutionLimitError, withCoreBytes, cString } from "./core.js";
import { makeImportObject, bindGuestMemory, unbindGuestMemory, TrapKind } from "./generated/wasi_imports.mjs";
import { workspaceOf } from "./js_sessions.js";
import { releaseInstance } from "./instances.js";
import { WASMIFY_LIMIT } from "./generated/abi.mjs";

export { ExecutionLimitError };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// The core's copy of each archive object (parsed once per core): archive object -> { core, id }.
const archives = new WeakMap();
// A meter's binding to the host that last adopted it: meter -> { core, host }.
const meterHosts = new WeakMap();

function coreFor(workspace) {
  const core = workspace?.core ?? getCore.instance;
  if (!core) {
    throw new Error("createWasi: the core is not loaded; call it from Engine.run or sessions.boot/restore (or await ready())");
  }
  return core;
}

/** Resolves once the core is loaded (createWasi is synchronous; inside Engine.run and sessions it always is). */
export async function ready() {
  await getCore();
}

function archiveId(core, archive) {
  if (archive === null || archive === undefined) return 0;
  const known = archives.get(archive);
  if (known && known.core === core) return known.id;
  const bytes = archive instanceof Uint8Array ? archive : new Uint8Array(archive);
  const id = withCoreBytes(core, bytes, (p, n) => core._sw_wasi_archive_new(p, n));
  if (id === 0) throw new Error(`createWasi: ${cString(core, core._sw_wasi_error())}`);
  archives.set(archive, { core, id });
  return id;
}

/** A fuel meter for createWasi: `fuel` is limits.fuel (0 = unmetered). The count itself lives in the core's host. */
export class FuelMeter {
  constructor(fuel) {
    this.fuel = fuel;
  }
  /** Refills the host's meter to `fuel` (protocol §5.5: at the start of every execute). */
  reset() {
    const bound = meterHosts.get(this);
    if (bound?.host) bound.core._sw_wasi_engine_reset(bound.host, this.fuel, 0);
  }
  /** Fuel used since the last reset, capped at the budget (usage.fuelConsumed). */
  consumed() {
    const bound = meterHosts.get(this);
    return bound?.host ? bound.core._sw_wasi_fuel_consumed(bound.host) : 0;
  }
}

/** A fuel meter (protocol §5.5; `budget(fuel)`, §5.7). */
export function budget(fuel) {
  return new FuelMeter(fuel);
}

/** The WASI host createWasi returns. */
export class WasiHost {
  #core;
  #binding;
  #meter;
  #memory = null;

  constructor(core, host, imports, meter) {
    this.#core = core;
    this.#binding = { host };
    this.#meter = meter;
    this.imports = imports(this.#binding);
  }

  /** The core's handle (0 once closed). */
  get handle() {
    return this.#binding.host;
  }

  #live() {
    if (this.#binding.host === 0) throw new Error("this WASI host was closed");
    return this.#binding.host;
  }

  /** Binds `instance`'s exported memory to the host without running anything (after restoring its memory). */
  bind(instance) {
    const memory = instance?.exports?.memory;
    if (!(memory instanceof WebAssembly.Memory)) throw new Error("the instance exports no memory");
    bindGuestMemory(this.#core, this.#live(), memory);
    this.#core.wasmifyBind(this.#live(), instance); // flushFuel reads the fuel tool's exported globals through it
    this.#memory = memory;
  }

  /** A command module: binds its memory, runs `_start`; returns the exit code (proc_exit's, else 0). */
  start(instance) {
    this.bind(instance);
    try {
      instance.exports._start();
      return 0;
    } catch (error) {
      if (error?.kind === TrapKind.Exit) return error.exitCode;
      throw error;
    }
  }

  /** A reactor module: binds its memory, runs `_initialize` if it exports one. */
  initialize(instance) {
    this.bind(instance);
    if (typeof instance.exports._initialize === "function") instance.exports._initialize();
  }

  /** The meter's limits.fuel (0 when unmetered). */
  get fuel() {
    return this.#meter?.fuel ?? 0;
  }

  /** The core module this host lives in (for ./wasmify). */
  get core() {
    return this.#core;
  }

  /** The bound memory (null before start/initialize/bind). */
  get memory() {
    return this.#memory;
  }

  #lines(fd) {
    const core = this.#core;
    const h = this.#live();
    const p = core._sw_wasi_output_lines(h, fd);
    return JSON.parse(decoder.decode(core.HEAPU8.subarray(p, p + core._sw_wasi_scratch_len(h))));
  }

  /** Captured stdout as lines (protocol §3.3). */
  stdout() {
    return this.#lines(1);
  }

  /** Captured stderr as lines (protocol §3.3). */
  stderr() {
    return this.#lines(2);
  }

  #usage(whenExhausted) {
    const core = this.#core;
    const p = core._sw_wasmify_usage(this.#live(), whenExhausted);
    if (p === 0) throw new ExecutionLimitError("Execution fuel exhausted");
    return JSON.parse(decoder.decode(core.HEAPU8.subarray(p, p + core._sw_wasmify_result_len())));
  }

  /** protocol §3.4 usage; throws ExecutionLimitError when the budget is already exhausted (protocol §5.5). */
  usage() {
    return this.#usage(0);
  }

  /**
   * The usage an outcome reports: usage() also once the budget is exhausted (fuelConsumed = fuelLimit then), so a
   * limit reports what it cost like every other result (docs/protocol-decisions.md). Built by the core
   * (wasmify::hostUsage), as for the built-in engines.
   */
  outcomeUsage() {
    return this.#usage(1);
  }

  /** The start of an execute (protocol §5.5): the meter refilled, captured output and its counters cleared. */
  reset() {
    this.#core._sw_wasi_engine_reset(this.#live(), this.#meter?.fuel ?? 0, 1);
  }

  /**
   * A module metered by our fuel tool (docs/fuel-tool.md) charges the host once per batch of 1,024 units: call this
   * when a run returns to charge the rest of its count, so that usage is exact and a run that overdrew the budget in
   * its last batch is caught. Returns true, or false when that charge overdrew the budget (report
   * ExecutionLimitError `Execution fuel exhausted`). A module without the tool's globals: true, nothing charged.
   */
  flushFuel() {
    const status = this.#core._sw_wasmify_flush_fuel(this.#live());
    if (status === 0) return true;
    if (status === WASMIFY_LIMIT) return false;
    throw new Error("the engine's fuel counter is corrupt");
  }

  /** True while the guest holds a descriptor beyond the fixed preopens (then a snapshot must not be taken). */
  hasOpenGuestFds() {
    return this.#core._sw_wasi_has_open_guest_fds(this.#live()) !== 0;
  }

  /** Releases the host; the guest's later WASI calls fail with EBADF. Idempotent. */
  close() {
    const h = this.#binding.host;
    if (h === 0) return;
    releaseInstance(this.#core, h); // an instance from EngineInstances: pooled or dropped, as the core decides
    this.#core.hostExtraImports?.delete(h);
    this.#binding.host = 0;
    unbindGuestMemory(this.#core, h);
    this.#core.wasmifyUnbind(h);
    const bound = meterHosts.get(this.#meter);
    if (bound?.host === h) meterHosts.delete(this.#meter);
    this.#core._sw_wasi_host_free(h);
  }
}

/**
 * Builds a WASI host (protocol §5.4, §5.7): `module` the engine's compiled WebAssembly.Module, `archive` its /stdlib
 * (tar or stored zip bytes) or null, `meter` from budget(fuel) or null (unmetered), `envVars` the guest's environment
 * ({KEY: value}), `workspaceDir` the `workspace` of a session's SessionOptions (mounted as /workspace, fd 5) or null,
 * `options.imports` further import functions for names WASI does not provide ({ module: { name: fn } }).
 */
export function createWasi(module, archive, meter, envVars, workspaceDir, options = {}) {
  const workspace = workspaceDir === null || workspaceDir === undefined ? undefined : workspaceOf(workspaceDir);
  if (workspaceDir !== null && workspaceDir !== undefined && !workspace) {
    throw new TypeError("createWasi: workspaceDir must be the `workspace` of a session's options, or null");
  }
  const core = coreFor(workspace);
  const config = { env: envVars ?? {}, fuel: meter?.fuel ?? 0 };
  if (workspace) config.workspace = workspace.id;
  // A module stripped of its data segments (docs/boot-images.md): the core restores it, never boots it.
  if (WebAssembly.Module.customSections(module, "sw.nodata").length) config.noDataSegments = true;
  // A module whose engine has a boot image in use: the image's descriptors (docs/engine-authors.md, "A boot image").
  if (core.imageModules?.has(module)) config.imageLayout = true;
  const archiveHandle = archiveId(core, archive);
  const host = withCoreBytes(core, encoder.encode(JSON.stringify(config)),
    (p, n) => core._sw_wasi_engine_host_new(p, n, archiveHandle));
  if (host === 0) throw new Error(cString(core, core._sw_wasi_error()));
  if (meter) meterHosts.set(meter, { core, host });
  const extra = options.imports ?? {};
  if (options.imports) core.hostExtraImports?.set(host, extra);
  return new WasiHost(core, host, (binding) => {
    const imports = makeImportObject(core, binding, module);
    for (const imp of WebAssembly.Module.imports(module)) {
      const fn = extra[imp.module]?.[imp.name];
      if (typeof fn === "function") imports[imp.module][imp.name] = fn;
    }
    return imports;
  }, meter);
}

/** False while the guest holds no descriptor beyond the fixed preopens (canSnapshot()'s precondition, protocol §5.2). */
export function hasOpenGuestFds(host) {
  return host.hasOpenGuestFds();
}
