/* Force-included (-include) into every Lua source file of the wasm32-wasi build (scripts/engines/lua.sh).
 *
 * - stdout/stderr: Lua's print, io.write, io.stdout, io.stderr and warn() write to two capture streams of the driver
 *   (engines/lua/driver.c), so output is counted against protocol §3.3's limits inside the engine.
 * - system/tmpfile/tmpnam: wasi-libc has none of them; os.execute then reports "not supported" through Lua's own
 *   error path, io.tmpfile and os.tmpname fail as on a system without temporary files.
 * - sw_lua_output_over: set by the driver once the output limit is exceeded (patches/output-limit.patch). */
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

extern int sw_lua_output_over;

#endif
