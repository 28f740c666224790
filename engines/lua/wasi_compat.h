/* Force-included (-include) into every Lua source file of the wasm32-wasi build (scripts/engines/lua.sh).
 *
 * - stdout/stderr: Lua's print, io.write, io.stdout, io.stderr and warn() write to two capture streams of the driver
 *   (engines/lua/driver.c), so output is counted against protocol §3.3's limits inside the engine.
 * - system/tmpfile/tmpnam: wasi-libc has none of them; os.execute then reports "not supported" through Lua's own
 *   error path, io.tmpfile and os.tmpname fail as on a system without temporary files.
 * - SW_FUEL(units): fuel for C loops that run no Lua instruction (pattern matching, sort comparisons, plain find). */
#ifndef SW_LUA_WASI_COMPAT_H
#define SW_LUA_WASI_COMPAT_H

#include <stdint.h>
#include <stdio.h>

extern FILE *sw_lua_stdout;
extern FILE *sw_lua_stderr;
#undef stdout
#undef stderr
#define stdout sw_lua_stdout
#define stderr sw_lua_stderr

int sw_lua_system(const char *command);
FILE *sw_lua_tmpfile(void);
#define system sw_lua_system
#define tmpfile sw_lua_tmpfile
#define LUA_TMPNAMBUFSIZE 32
#define lua_tmpnam(b, e) ((void)(b), (e) = 1)
/* Hook fields are set by signal handlers on other platforms; there are no signals here (no <signal.h>). */
#define l_signalT int

/* Units left before the next sandbox.charge call (engines/lua/README.md "Fuel"). */
extern int32_t sw_lua_fuel_countdown;
void sw_lua_fuel_flush(void);
#define SW_FUEL(n) ((void)((sw_lua_fuel_countdown -= (int32_t)(n)) < 0 ? (sw_lua_fuel_flush(), 0) : 0))

#endif
