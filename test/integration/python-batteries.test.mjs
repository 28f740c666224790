// The Python runtime Worker's "batteries" (issue 28) in workerd through Miniflare: zoneinfo with Debian's IANA database
// (every expected local time comes from this Node's own Intl, full ICU, for the same zone and instant), asyncio on
// the event loop that needs no sockets, sqlite3 in memory and on a /workspace file across a snapshot restore, and SQLite's C
// code metered like the rest of the engine.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { useLanguageRuntime, contextText } from "./language-runtime.mjs";

const rt = useLanguageRuntime("python");

function ok(r) {
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return r.results[0]?.json ?? r.results[0]?.text;
}

// "2026-03-29T03:00:00+02:00" for an instant (epoch seconds) in a zone, from Intl: what ICU's zone data says.
function intlLocal(zone, epochSeconds) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "longOffset",
    }).formatToParts(new Date(epochSeconds * 1000)).map((p) => [p.type, p.value]),
  );
  const offset = parts.timeZoneName === "GMT" ? "+00:00" : parts.timeZoneName.slice(3);
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}

// Zones with DST both ways, half- and quarter-hour offsets, a 30-minute DST (Lord Howe), DST abolished (Sao Paulo,
// 2019) and a zone without DST; instants on both sides of transitions, historic ones, and ones past 2037 (answered
// by the TZif footer's rule, not a listed transition).
const ZONES = ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe",
  "America/Sao_Paulo", "Pacific/Chatham", "Europe/London", "Asia/Tokyo", "America/Los_Angeles"];
const INSTANTS = [
  0, 946684800, // 1970, 2000
  Date.UTC(2026, 2, 29, 0, 59, 59) / 1000, Date.UTC(2026, 2, 29, 1, 0, 0) / 1000, // Europe's spring change (01:00 UTC)
  Date.UTC(2026, 9, 25, 0, 59, 59) / 1000, Date.UTC(2026, 9, 25, 1, 0, 0) / 1000, // and autumn's
  Date.UTC(2026, 2, 8, 6, 59, 59) / 1000, Date.UTC(2026, 2, 8, 7, 0, 0) / 1000, // New York's spring (2:00 EST)
  Date.UTC(2026, 10, 1, 5, 59, 59) / 1000, Date.UTC(2026, 10, 1, 6, 0, 0) / 1000, // and autumn (2:00 EDT)
  Date.UTC(2026, 3, 4, 14, 59, 59) / 1000, Date.UTC(2026, 3, 4, 15, 0, 0) / 1000, // Lord Howe's autumn (2:00 +11)
  Date.UTC(2018, 10, 4, 2, 59, 59) / 1000, Date.UTC(2018, 10, 4, 3, 0, 0) / 1000, // Sao Paulo's last DST start
  Date.UTC(2040, 6, 1, 12) / 1000, Date.UTC(2045, 0, 15, 12) / 1000, // past the listed transitions
];

describe("Python batteries: zoneinfo with IANA data", () => {
  it("local times of 10 zones at 16 instants match Node's Intl", async () => {
    const cases = ZONES.flatMap((z) => INSTANTS.map((t) => [z, t]));
    const r = await rt.exec(
      "from zoneinfo import ZoneInfo\nfrom datetime import datetime\n" +
        `cases = ${JSON.stringify(cases)}\n` +
        "[datetime.fromtimestamp(t, ZoneInfo(z)).isoformat() for z, t in cases]",
    );
    const got = ok(r);
    assert.equal(got.length, cases.length);
    const mismatches = cases.map(([z, t], i) => [z, t, got[i], intlLocal(z, t)]).filter(([, , a, b]) => a !== b);
    assert.deepEqual(mismatches, []);
  });

  it("wall times, DST names and arithmetic across a transition in Europe/Berlin and America/New_York", async () => {
    const r = await rt.exec(
      "from zoneinfo import ZoneInfo, available_timezones\nfrom datetime import datetime, timedelta, timezone\n" +
        "b, ny = ZoneInfo('Europe/Berlin'), ZoneInfo('America/New_York')\n" +
        "before = datetime(2026, 3, 29, 1, 30, tzinfo=b)\n" +
        "after = (before.astimezone(timezone.utc) + timedelta(hours=1)).astimezone(b)\n" +
        "fall = [datetime(2026, 11, 1, 1, 30, fold=f, tzinfo=ny) for f in (0, 1)]\n" +
        "zones = available_timezones()\n" +
        "[before.tzname(), after.isoformat(), after.tzname(), [d.utcoffset().total_seconds() / 3600 for d in fall],\n" +
        " [d.tzname() for d in fall], datetime(2026, 7, 1, 12, tzinfo=ny).astimezone(b).isoformat(),\n" +
        " 'Europe/Berlin' in zones, 'US/Eastern' in zones, len(zones) > 500, str(ZoneInfo('UTC').utcoffset(None))]",
    );
    assert.deepEqual(ok(r), [
      "CET", "2026-03-29T03:30:00+02:00", "CEST", [-4, -5], ["EDT", "EST"], "2026-07-01T18:00:00+02:00",
      true, true, true, "0:00:00",
    ]);
    // The same wall time from Node's zone data.
    assert.equal(intlLocal("Europe/Berlin", Date.UTC(2026, 6, 1, 16) / 1000), "2026-07-01T18:00:00+02:00");
  });

  it("an unknown key is ZoneInfoNotFoundError, a path outside the database is refused", async () => {
    const r = await rt.exec(
      "from zoneinfo import ZoneInfo, ZoneInfoNotFoundError\nout = []\n" +
        "for key in ('Mars/Olympus_Mons', '../../lib/python3.13/os.pyc', '/etc/passwd'):\n" +
        "    try:\n        ZoneInfo(key)\n        out.append('found')\n" +
        "    except (ZoneInfoNotFoundError, ValueError) as e:\n        out.append(type(e).__name__)\nout",
    );
    assert.deepEqual(ok(r), ["ZoneInfoNotFoundError", "ValueError", "ValueError"]);
  });
});

describe("Python batteries: asyncio without sockets", () => {
  it("asyncio.run, sleep, gather, tasks, wait_for and queues give their values; sleeping takes no time", async () => {
    const r = await rt.exec(
      "import asyncio, time\norder = []\n" +
        "async def worker(name, delay):\n    await asyncio.sleep(delay)\n    order.append(name)\n    return name * 2\n" +
        "async def main():\n    loop = asyncio.get_running_loop()\n    t0, w0 = loop.time(), time.monotonic()\n" +
        "    res = await asyncio.gather(worker('c', 3), worker('a', 1), worker('b', 2))\n" +
        "    task = asyncio.create_task(worker('d', 0.5))\n    d = await task\n" +
        "    try:\n        await asyncio.wait_for(asyncio.sleep(3600), timeout=5)\n" +
        "    except TimeoutError:\n        order.append('timeout')\n" +
        "    q = asyncio.Queue()\n" +
        "    async def prod():\n        for i in range(3):\n            await q.put(i)\n            await asyncio.sleep(0.01)\n" +
        "    async def cons():\n        return [await q.get() for _ in range(3)]\n" +
        "    _, got = await asyncio.gather(prod(), cons())\n" +
        "    return [res, d, order, got, round(loop.time() - t0), time.monotonic() - w0 < 5]\n" +
        "asyncio.run(main())",
    );
    assert.deepEqual(ok(r), [["cc", "aa", "bb"], "dd", ["a", "b", "c", "d", "timeout"], [0, 1, 2], 9, true]);
  });

  it("a loop with nothing left to run raises instead of hanging; an exception in a task propagates", async () => {
    const r = await rt.exec(
      "import asyncio\nout = []\n" +
        "async def forever():\n    await asyncio.Event().wait()\n" +
        "try:\n    asyncio.run(forever())\nexcept RuntimeError as e:\n    out.append(str(e)[:33])\n" +
        "async def boom():\n    await asyncio.sleep(1)\n    raise ValueError('x')\n" +
        "try:\n    asyncio.run(boom())\nexcept ValueError as e:\n    out.append(repr(e))\nout",
    );
    assert.deepEqual(ok(r), ["the event loop would wait forever", "ValueError('x')"]);
  });

  it("a busy coroutine still runs out of fuel", async () => {
    const r = await rt.exec("import asyncio\nasync def spin():\n    while True:\n        await asyncio.sleep(0)\nasyncio.run(spin())");
    assert.equal(r.error.name, "ExecutionLimitError");
    assert.equal(r.error.message, "Execution fuel exhausted");
  });
});

describe("Python batteries: sqlite3", () => {
  it("an in-memory database: tables, parameters, aggregates, JSON functions, the version", async () => {
    const r = await rt.exec(
      "import sqlite3\nc = sqlite3.connect(':memory:')\n" +
        "c.execute('create table t(id integer primary key, name text, score real)')\n" +
        "c.executemany('insert into t(name, score) values (?, ?)', [('ada', 9.5), ('bob', 7.0), ('cy', 8.25)])\n" +
        "rows = c.execute('select name, score from t where score > ? order by score desc', (7.5,)).fetchall()\n" +
        "agg = c.execute('select count(*), sum(score), group_concat(name) from t').fetchone()\n" +
        "js = c.execute(\"select json_extract('{\\\"a\\\": [1, 2, 3]}', '$.a[1]')\").fetchone()[0]\n" +
        "[rows, list(agg), js, sqlite3.sqlite_version]",
    );
    assert.deepEqual(ok(r), [[["ada", 9.5], ["cy", 8.25]], [3, 24.75, "ada,bob,cy"], 2, "3.40.1"]);
  });

  it("an endless recursive query ends as ExecutionLimitError (SQLite's C code is metered)", async () => {
    const r = await rt.exec(
      "import sqlite3\nsqlite3.connect(':memory:').execute(" +
        "'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c').fetchone()",
    );
    assert.equal(r.error.name, "ExecutionLimitError");
    assert.equal(r.error.message, "Execution fuel exhausted");
    assert.equal(r.usage.fuelConsumed, 100_000_000);
  });

  it("a stateless request has no writable directory: a file database fails as OperationalError", async () => {
    const r = await rt.exec(
      "import sqlite3\ntry:\n    sqlite3.connect('/workspace/x.db').execute('create table t(x)')\n" +
        "except sqlite3.OperationalError as e:\n    r = str(e)\nr",
    );
    assert.equal(ok(r), "'unable to open database file'");
  });

  // The caller owns /workspace's files (getFiles); a round that runs out of fuel drops the instance, and the next one
  // restores the last snapshot with the files the caller synced back.
  it("a database file under /workspace in a context survives the instance being dropped and restored", async () => {
    const run = (code) => rt.run({ key: "py", contextId: "sq", code });
    assert.equal((await rt.createContext("py", "sq")).status, 201);
    const created = await run(
      "import sqlite3, contextlib\n" +
        "with contextlib.closing(sqlite3.connect('/workspace/app.db')) as c, c:\n" +
        "    c.execute('create table notes(id integer primary key, body text)')\n" +
        "    c.executemany('insert into notes(body) values (?)', [('first',), ('second',)])\n",
    );
    assert.equal(created.result.error, undefined, JSON.stringify(created.result.error));
    assert.equal(created.result.context.snapshot.stale, false);
    const spin = await run("while True: pass");
    assert.equal(spin.result.error.name, "ExecutionLimitError");
    const after = await run(
      "with contextlib.closing(sqlite3.connect('app.db')) as c, c:\n" +
        "    c.execute(\"insert into notes(body) values ('third')\")\n" +
        "    rows = c.execute('select id, body from notes order by id').fetchall()\n" +
        "rows",
    );
    assert.equal(after.result.error, undefined, JSON.stringify(after.result.error));
    assert.deepEqual(after.result.results[0].json, [[1, "first"], [2, "second"], [3, "third"]]);
    assert.equal(contextText(await run("len(rows)")), "3");
    const files = await rt.sandbox();
    assert.ok("/workspace/app.db" in files, Object.keys(files).join(", "));
  });
});
