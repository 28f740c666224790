// Crash-consistency soak (issue 23 item 4; figures in docs/snapshots.md "Crash consistency"). A language's runtime
// Worker runs in workerd (through Miniflare, next to the caller Worker of test/integration/fixtures/context-caller.js)
// over on-disk Durable Object storage. Several contexts execute `n += 1` continuously, each execute answering n and
// snapshotting; at a random moment the workerd process is SIGKILLed (whatever it is doing: executing, snapshotting,
// committing, answering), then a new one starts over the same storage. After each restart every context is read: it
// must hold the value of its last *answered* execute, or the one after it if an execute was in flight at the kill —
// never an older value, a mix, a 500, a reported failed restore or a context that cannot be used. The kill comes
// 20 ms to 20 ms + max(1.5 s, 3 × the median execute time) after the executes start.
//
//   node test/soak/crash-consistency.mjs [--language javascript,python] [--kills 200] [--seed 1] [--contexts 3]
//                                        [--max-minutes 30]
// Exit code 0 only if no loss and no failure was seen in every language.
import { readdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir, cpus } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { execFileSync } from "node:child_process";
import { helperWorkerOptions, runtimeWorkerOptions, startMiniflare, ROOT } from "../integration/helpers.mjs";

const { values: opts } = parseArgs({
  options: {
    language: { type: "string", default: "javascript,python" },
    kills: { type: "string", default: "200" },
    seed: { type: "string", default: "1" },
    contexts: { type: "string", default: "3" },
    "max-minutes": { type: "string", default: "30" },
  },
});
const KILLS = Number(opts.kills);
const CONTEXTS = Number(opts.contexts);
const DEADLINE_MS = Number(opts["max-minutes"]) * 60_000;

// Per language: the program that defines the counter, the one that increments and answers it, the one that reads it.
const PROGRAMS = {
  javascript: { init: "var n = 0; n", inc: "n += 1; n", read: "n" },
  python: { init: "n = 0\nn", inc: "n += 1\nn", read: "n" },
  perl: { init: "$main::n = 0; $main::n", inc: "$main::n += 1; $main::n", read: "$main::n" },
  lua: { init: "n = 0 return n", inc: "n = n + 1 return n", read: "return n" },
};

// mulberry32: a small seeded generator, so a run's kill points can be replayed with --seed.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The workerd processes that are children of this process (Miniflare spawns workerd itself).
function workerdChildren() {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === process.pid && comm === "workerd") pids.push(Number(entry));
    } catch {}
  }
  return pids;
}
process.on("exit", () => {
  for (const pid of workerdChildren()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
});
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => process.exit(130));

const withTimeout = (promise, ms, what) =>
  Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms).unref())]);

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] ?? 0;

async function soak(language, seed) {
  const programs = PROGRAMS[language];
  if (!programs) throw new Error(`unknown language ${language} (${Object.keys(PROGRAMS).join(", ")})`);
  const persist = mkdtempSync(path.join(tmpdir(), `sw-soak-${language}-`));
  const random = rng(seed);
  const start = () =>
    withTimeout(
      startMiniflare(
        [
          helperWorkerOptions({ name: "caller", entry: "context-caller.js", serviceBindings: { RUNTIME: "runtime" } }),
          runtimeWorkerOptions({ name: "runtime", language, routes: ["runtime.test/*"] }),
        ],
        { resourcePersistencePath: persist },
      ),
      120_000,
      "start",
    );
  let mf = await start();
  const post = async (p, body, ms = 60_000) => {
    const res = await mf.dispatchFetch(new URL(p, "https://caller.test"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(ms),
    });
    return { status: res.status, text: await res.text() };
  };
  const stats = { kills: 0, restores: 0, losses: 0, failures: 0, executes: 0, inDoubt: 0, inDoubtLanded: 0, restartMs: [], readMs: [] };
  const problems = [];
  const problem = (what) => {
    problems.push(what);
    console.log(`  ! ${what}`);
  };
  // answered[c]: the value of c's last answered execute; inFlight[c]: an execute was sent and not answered.
  const ids = Array.from({ length: CONTEXTS }, (_, i) => `c${i}`);
  const answered = {};
  const inFlight = {};
  /** executeInContext through the caller; resolves {value} or {error} (a dead workerd is an error, not a failure). */
  const latencies = []; // ms of the last answered executes, for the kill window
  const killWindowMs = () => Math.max(1500, 3 * median(latencies.slice(-60)));
  const execute = async (contextId, code) => {
    let r;
    const sent = Date.now();
    try {
      r = await post("/run", { key: "soak", contextId, code });
    } catch (error) {
      return { error };
    }
    latencies.push(Date.now() - sent);
    if (r.status !== 200) return { failure: `HTTP ${r.status}: ${r.text.slice(0, 300)}` };
    const body = JSON.parse(r.text);
    if (!body.ok) return { failure: `not ok: ${r.text.slice(0, 300)}` };
    const result = body.result;
    if (result.error) return { failure: `guest error: ${JSON.stringify(result.error).slice(0, 300)}` };
    if (result.context.restoreError) return { failure: `restore failed: ${JSON.stringify(result.context.restoreError)}` };
    return { value: Number(result.results[0]?.text) };
  };

  for (const id of ids) {
    const created = await post(`/forward`, { path: "/interpreters/soak/contexts", body: { id } });
    if (JSON.parse(created.text).status !== 201) throw new Error(`create ${id}: ${created.text}`);
    const r = await execute(id, programs.init);
    if (r.value !== 0) throw new Error(`init ${id}: ${JSON.stringify(r)}`);
    answered[id] = 0;
    inFlight[id] = false;
  }

  const t0 = Date.now();
  while (stats.kills < KILLS && Date.now() - t0 < DEADLINE_MS) {
    // Every context executes in a loop until the kill; each answer must be exactly the previous one + 1.
    let killed = false;
    const drive = async (id) => {
      while (!killed) {
        inFlight[id] = true;
        const r = await execute(id, programs.inc);
        if (r.error) return; // the process died under this execute: it stays in doubt
        inFlight[id] = false;
        stats.executes++;
        if (r.failure) {
          stats.failures++;
          return problem(`${language} ${id}: ${r.failure}`);
        }
        if (r.value !== answered[id] + 1) {
          stats.losses++;
          problem(`${language} ${id}: answered ${r.value}, expected ${answered[id] + 1}`);
        }
        answered[id] = r.value;
      }
    };
    const drivers = ids.map(drive);
    // A random moment: anywhere from the first execute's start to several executes later. The window grows with the
    // language's execute time (a Perl context switch restores ~12 MiB), so kills land after answers there too.
    await new Promise((r) => setTimeout(r, 20 + random() * killWindowMs()));
    killed = true;
    const pids = workerdChildren();
    for (const pid of pids) process.kill(pid, "SIGKILL");
    stats.kills++;
    await withTimeout(Promise.all(drivers), 60_000, "executes after the kill");
    await withTimeout(mf.dispose().catch(() => {}), 30_000, "dispose");
    const restartStarted = Date.now();
    mf = await start();
    stats.restartMs.push(Date.now() - restartStarted);

    // Every context restores: its last answered value, or the one after it if an execute was in flight.
    for (const id of ids) {
      const readStarted = Date.now();
      const r = await execute(id, programs.read);
      stats.readMs.push(Date.now() - readStarted);
      stats.restores++;
      if (r.error || r.failure) {
        stats.failures++;
        problem(`${language} ${id} after kill ${stats.kills}: ${r.failure ?? r.error}`);
        continue;
      }
      const ok = r.value === answered[id] || (inFlight[id] && r.value === answered[id] + 1);
      if (!ok) {
        stats.losses++;
        problem(`${language} ${id} after kill ${stats.kills}: restored ${r.value}, last answered ${answered[id]}${inFlight[id] ? " (+1 in flight)" : ""}`);
      }
      if (inFlight[id]) {
        stats.inDoubt++;
        if (r.value === answered[id] + 1) stats.inDoubtLanded++;
      }
      answered[id] = r.value;
      inFlight[id] = false;
    }
    if (stats.kills % 20 === 0) {
      console.log(`  ${language}: ${stats.kills} kills, ${stats.restores} restores, ${stats.executes} executes, ${stats.losses} losses, ${stats.failures} failures (${Math.round((Date.now() - t0) / 1000)} s)`);
    }
  }
  await mf.dispose().catch(() => {});
  rmSync(persist, { recursive: true, force: true });
  return { ...stats, killWindowMs: killWindowMs(), seconds: Math.round((Date.now() - t0) / 1000), restartMs: median(stats.restartMs), readMs: median(stats.readMs), problems };
}

const commit = (() => {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "?";
  }
})();
console.log(`crash-consistency soak: --language ${opts.language} --kills ${KILLS} --seed ${opts.seed} --contexts ${CONTEXTS}; ${cpus().length} cores; commit ${commit}`);
let bad = 0;
for (const language of opts.language.split(",")) {
  const s = await soak(language, Number(opts.seed));
  console.log(
    `${language}: kills ${s.kills}, restores ${s.restores}, losses ${s.losses}, failures ${s.failures}; executes ${s.executes}, ` +
      `in flight at a kill ${s.inDoubt} (of which landed ${s.inDoubtLanded}); median restart ${s.restartMs} ms, median first read ${s.readMs} ms; ` +
      `kill window ${s.killWindowMs} ms; ${s.seconds} s`,
  );
  if (s.losses || s.failures || s.kills < KILLS) bad++;
}
process.exit(bad ? 1 : 0);
