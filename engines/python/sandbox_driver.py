"""The Python side of the Python engine's driver (engines/python/driver.c, protocol §3.1-3.3, §6.3).

scripts/engines/python.sh compiles this file with the native build python (the same CPython version) into a
marshalled code object that driver.c embeds; it runs once at sw_engine_new in a private namespace (not in
sys.modules) and leaves `run` and `after_restore` for the C side. It imports builtin modules and os only itself; a list
or dict result is encoded by _json's C encoder directly, and json is imported only for an env that the small parser
below does not handle. At the end of boot it imports PRELOADED, the modules most programs import, so they are in the
boot image (engines/python/README.md "Preloaded modules"): a request's first `import json` finds them in sys.modules.

run(code: bytes, env_json: bytes, session: bool, cwd: bytes) -> (outcome_json: bytes, cwd: str)
  outcome = {"logs":{"stdout":[..],"stderr":[..]},"results":[] | [{"text":..}] | [{"json":..}],
             "error"?:{"name","message","traceback"}}  (+ "cwd" in a session)
"""
import sys
import builtins
import _io
import _json
import posix
import os

MAX_OUTPUT_BYTES = 32768    # stdout + stderr, UTF-8 bytes (protocol §3.3)
MAX_RESULT_BYTES = 65536    # the text, or the JSON text, of the result (protocol §3.2)
USER_FILENAME = '<sandbox>'
WORKSPACE = '/workspace'
DRIVER_FILENAME = '<sandbox-driver>'   # the filename this file is compiled with (python.sh)

_PyCF_ONLY_AST = 0x400
_ast = sys.modules.get('_ast') or __import__('_ast')
_encode_str = _json.encode_basestring   # a JSON string literal, non-ASCII kept as is
# What the driver relies on, bound now: user code that rebinds or deletes os.environ, os.chdir, __main__, ... breaks
# only itself, never the next call.
_environ = os.environ
_chdir, _getcwd, _normpath, _isdir = os.chdir, os.getcwd, os.path.normpath, os.path.isdir
_main_globals = sys.modules['__main__'].__dict__


class _OutputLimit(BaseException):
    """Raised by every write past the output cap: the program ends there (issue 22 item 4), not at the fuel limit."""


class _Sink:
    """Both streams of one call. Stops storing once the byte limit is crossed (a print loop cannot fill memory)."""

    def __init__(self):
        self.chunks = ([], [])
        self.total = 0
        self.over = False

    def add(self, index, text):
        if self.over:
            raise _OutputLimit('Output limit exceeded')
        if not text:
            return
        self.total += len(text) if text.isascii() else len(text.encode('utf-8', 'surrogatepass'))
        if self.total > MAX_OUTPUT_BYTES:
            self.over = True    # a session reports what came before; a stateless call reports no logs
            raise _OutputLimit('Output limit exceeded')
        self.chunks[index].append(text)

    def lines(self, index):
        text = ''.join(self.chunks[index])
        if not text:
            return []
        parts = text.split('\n')
        if parts[-1] == '':
            parts.pop()
        return parts


class _Binary:
    """sys.stdout.buffer: bytes written are decoded as UTF-8."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, data):
        data = bytes(data)
        self._stream.write(data.decode('utf-8', 'replace'))
        return len(data)

    def flush(self):
        pass


class _Stream(_io._TextIOBase):
    """A text stream collecting into the sink (sys.stdout / sys.stderr during a call)."""

    def __init__(self, sink, index, name):
        self._sink = sink
        self._index = index
        self._name = name
        self.buffer = _Binary(self)

    encoding = 'utf-8'
    errors = 'strict'
    newlines = None

    @property
    def name(self):
        return self._name

    def writable(self):
        return True

    def readable(self):
        return False

    def isatty(self):
        return False

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f'write() argument must be str, not {type(text).__name__}')
        if self.closed:
            raise ValueError('I/O operation on closed file.')
        self._sink.add(self._index, text)
        return len(text)

    def flush(self):
        pass


def _parse_env(data):
    """env_json: a JSON object of strings (the host's encoding). Falls back to json for anything else."""
    text = data.decode('utf-8', 'surrogatepass') if data else ''
    if not text.strip():
        return {}
    try:
        env, i, n = {}, 0, len(text)

        def skip(i):
            while i < n and text[i] in ' \t\r\n':
                i += 1
            return i
        i = skip(i)
        if text[i] != '{':
            raise ValueError
        i = skip(i + 1)
        if text[i] == '}':
            return env
        while True:
            if text[i] != '"':
                raise ValueError
            key, i = _json.scanstring(text, i + 1)
            i = skip(i)
            if text[i] != ':':
                raise ValueError
            i = skip(i + 1)
            if text[i] != '"':
                raise ValueError
            value, i = _json.scanstring(text, i + 1)
            env[key] = value
            i = skip(i)
            if text[i] == '}':
                return env
            if text[i] != ',':
                raise ValueError
            i = skip(i + 1)
    except (ValueError, IndexError):
        import json
        value = json.loads(text)
        if not isinstance(value, dict):
            return {}
        return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in value.items()}


def _set_environ(env):
    # os.environ's own mapping is refilled in one pass (in place: os.environb shares it). Going through
    # os.environ[key] = value would call putenv per key, and wasi-libc's putenv scans the whole C environment each
    # time: O(n^2), ~100 ms for 8,000 keys that no fuel pays for. Nothing here reads the C environment (no
    # subprocesses; getenv users such as TZ see UTC either way).
    environ = _environ
    encodekey, encodevalue = environ.encodekey, environ.encodevalue
    data = environ._data
    data.clear()
    for key, value in env.items():
        if not key or '=' in key or '\0' in key or '\0' in value:
            continue    # putenv would reject it
        try:
            data[encodekey(key)] = encodevalue(value)
        except (TypeError, ValueError, UnicodeError):
            pass


def _type_name(exc_type):
    module = getattr(exc_type, '__module__', None)
    qualname = getattr(exc_type, '__qualname__', exc_type.__name__)
    if module in (None, 'builtins', '__main__'):
        return qualname
    return f'{module}.{qualname}'


def _safe_str(value):
    try:
        return str(value)
    except BaseException:    # a user __str__ that raises
        return f'<exception str() failed>'


MAX_FRAMES = 100      # traceback lines kept: the first and the last half (runaway recursion has thousands)


def _frames(tb):
    """'  File "<f>", line <n>, in <name>' lines of a traceback, the driver's own frames dropped. Like Python, a line
    repeated more than 3 times in a row is folded; past MAX_FRAMES lines only the first and last halves are kept.
    Walks once and keeps O(MAX_FRAMES) entries, so it works when memory is exhausted."""
    head, tail, omitted = [], [], 0
    last, repeats = None, 0

    def emit(line):
        nonlocal omitted
        if len(head) < MAX_FRAMES // 2:
            head.append(line)
        else:
            tail.append(line)
            if len(tail) > MAX_FRAMES // 2:
                del tail[0]
                omitted += 1

    def flush_repeats():
        if repeats > 3:
            emit(f'  [Previous line repeated {repeats - 3} more time{"s" if repeats - 3 > 1 else ""}]')

    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename != DRIVER_FILENAME:
            key = (code.co_filename, tb.tb_lineno, code.co_name)
            if key == last:
                repeats += 1
            else:
                flush_repeats()
                last, repeats = key, 1
            if repeats <= 3:
                emit(f'  File "{key[0]}", line {key[1]}, in {key[2]}')
        tb = tb.tb_next
    flush_repeats()
    if omitted:
        head.append(f'  [... {omitted} more lines ...]')
    return head + tail


def _describe(exc):
    """{"name", "message", "traceback"} of an exception (protocol §6.3)."""
    exc_type = type(exc)
    name = exc_type.__name__
    message = _safe_str(exc)
    head = _type_name(exc_type)
    lines = [f'{head}: {message}' if message else head]
    lines.extend(_frames(exc.__traceback__))
    if isinstance(exc, SyntaxError) and exc.filename == USER_FILENAME and len(lines) == 1:
        lines.append(f'  File "{USER_FILENAME}", line {exc.lineno}')
    exc.__traceback__ = None    # frames (and their locals) go now
    return {'name': name, 'message': message, 'traceback': lines}


def _json_str(text):
    return _encode_str(text)


def _encode_error(error):
    return ('{"name":' + _json_str(error['name']) + ',"message":' + _json_str(error['message']) +
            ',"traceback":[' + ','.join(map(_json_str, error['traceback'])) + ']}')


def _utf8_len(text):
    return len(text) if text.isascii() else len(text.encode('utf-8', 'replace'))


def _json_default(value):
    raise TypeError(f'Object of type {value.__class__.__name__} is not JSON serializable')


def _json_dumps(value):
    """json.dumps(value, allow_nan=False, ensure_ascii=False, separators=(',', ':')) for a list or dict: the C encoder
    json.dumps itself uses, with the same arguments (markers: the circular-reference check)."""
    encoder = _json.make_encoder({}, _json_default, _encode_str, None, ':', ',', False, False, False)
    return ''.join(encoder(value, 0))


def _result_entry(value):
    """The results entry as JSON text (protocol §3.2, §6.3), or None for None. Raises what repr() raises."""
    if value is None:
        return None
    if isinstance(value, (str, bytes, bytearray)) and len(value) > MAX_RESULT_BYTES:
        # Its repr is longer still and its UTF-8 no shorter, so it cannot fit: refused without building a repr that
        # could run the 64 MiB memory out first (a MemoryError for a 30 MB string instead of the result limit).
        return 'text', None
    if isinstance(value, (dict, list)):
        try:
            payload = _json_dumps(value)
        except (TypeError, ValueError, RecursionError):
            payload = None
        if payload is not None:
            return 'json', payload
    text = repr(value)
    if not isinstance(text, str):
        raise TypeError(f'__repr__ returned non-string (type {type(text).__name__})')
    return 'text', text


def _limit(message):
    return {'name': 'ExecutionLimitError', 'message': message, 'traceback': []}


def _exit(code=None):
    raise SystemExit(code) if code is not None else SystemExit()


class _Quitter:
    """exit() / quit() without the site module: raise SystemExit like the interactive helpers do."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f'Use {self.name}() to exit'

    def __call__(self, code=None):
        _exit(code)


def _disarm(module, name, replacement):
    if module is not None and hasattr(module, name):
        try:
            setattr(module, name, replacement)
        except (AttributeError, TypeError):
            pass


def _refuse(*args, **kwargs):
    raise OSError('not available in the sandbox')


def _setup():
    # Leaving the process (or crashing it) must end as a guest error: os._exit raises SystemExit instead.
    for module in (os, posix):
        _disarm(module, '_exit', _exit)
        _disarm(module, 'abort', _refuse)
    for name in ('_sigsegv', '_sigabrt', '_sigfpe', '_fatal_error', '_fatal_error_c_thread', '_stack_overflow',
                 '_read_null'):
        _disarm(sys.modules.get('faulthandler') or __import__('faulthandler'), name, _refuse)
    _disarm(sys.modules.get('_signal') or __import__('_signal'), 'raise_signal', _refuse)
    builtins.exit = _Quitter('exit')
    builtins.quit = _Quitter('quit')
    sys.argv = ['sandbox']
    sys.dont_write_bytecode = True


def _workspace_finders_reset(drop):
    """Forget (drop=True) or re-scan (drop=False) the import path finders of /workspace and below."""
    cache = sys.path_importer_cache
    for name in list(cache):
        if name == WORKSPACE or (isinstance(name, str) and name.startswith(WORKSPACE + '/')):
            finder = cache[name]
            if drop or finder is None:
                del cache[name]
            elif hasattr(finder, 'invalidate_caches'):
                finder.invalidate_caches()


def _session_prepare(cwd):
    path = sys.path
    if not path or path[0] != WORKSPACE:
        while WORKSPACE in path:
            path.remove(WORKSPACE)
        path.insert(0, WORKSPACE)
    # What importlib.invalidate_caches() does for /workspace (without importing importlib.metadata).
    _workspace_finders_reset(drop=False)
    if cwd:
        try:
            target = _normpath(cwd.decode('utf-8', 'surrogateescape'))
            if target == WORKSPACE or target.startswith(WORKSPACE + '/'):
                _chdir(target)
        except (OSError, ValueError):
            pass


def _session_cwd():
    try:
        cwd = _getcwd()
        if (cwd == WORKSPACE or cwd.startswith(WORKSPACE + '/')) and _isdir(cwd):
            return cwd
    except (OSError, ValueError):
        pass
    return WORKSPACE


def _execute(source, namespace):
    """Runs the code; returns the last expression's value (None when there is none)."""
    tree = compile(source, USER_FILENAME, 'exec', _PyCF_ONLY_AST, dont_inherit=True)
    body = tree.body
    last = None
    if body and isinstance(body[-1], _ast.Expr):
        last = body.pop()
    if body:
        code = compile(tree, USER_FILENAME, 'exec', dont_inherit=True)
        exec(code, namespace)
    if last is not None:
        expression = _ast.Expression(body=last.value)
        code = compile(expression, USER_FILENAME, 'eval', dont_inherit=True)
        return eval(code, namespace)
    return None


def run(code, env_json, session, cwd):
    sink = _Sink()
    out, err = _Stream(sink, 0, '<stdout>'), _Stream(sink, 1, '<stderr>')
    saved = (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)
    sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__ = out, err, out, err
    entry = error = None
    try:
        _set_environ(_parse_env(env_json))
        if session:
            _session_prepare(cwd)
            namespace = _main_globals
        else:
            namespace = {'__name__': '__main__'}
        source = code.decode('utf-8', 'replace')
        try:
            value = _execute(source, namespace)
            try:
                entry = _result_entry(value)
            finally:
                value = None
        except BaseException as exc:    # SystemExit, KeyboardInterrupt, MemoryError, RecursionError included
            error = _describe(exc)
            exc = None
        if not session:
            namespace.clear()    # finalizers (an open generator's finally) run now, with output still collected
            namespace = None
    finally:
        sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__ = saved
    limited = False
    if sink.over:
        error, entry, limited = _limit('Output limit exceeded'), None, True
    elif entry is not None and error is None and (entry[1] is None or _utf8_len(entry[1]) > MAX_RESULT_BYTES):
        error, entry, limited = _limit('Result limit exceeded'), None, True
    if limited and not session:
        stdout, stderr = [], []    # protocol §11 item 7: a stateless limit error has empty logs
    else:
        stdout, stderr = sink.lines(0), sink.lines(1)
    parts = ['{"logs":{"stdout":[', ','.join(map(_json_str, stdout)), '],"stderr":[',
             ','.join(map(_json_str, stderr)), ']},"results":[']
    if entry is not None and error is None:
        kind, payload = entry
        parts.append('{"' + kind + '":' + (payload if kind == 'json' else _json_str(payload)) + '}')
    parts.append(']')
    if error is not None:
        parts.append(',"error":' + _encode_error(error))
    new_cwd = ''
    if session:
        new_cwd = _session_cwd()
        parts.append(',"cwd":' + _json_str(new_cwd))
    parts.append('}')
    # Lone surrogates (print('\ud800')) cannot be UTF-8: they become '?'.
    return ''.join(parts).encode('utf-8', 'replace'), new_cwd


def after_restore():
    """After a snapshot restore: new randomness, and no stale view of /workspace (protocol §6.3)."""
    random = sys.modules.get('random')
    if random is not None:
        random.seed()
    _workspace_finders_reset(drop=True)



# The standard library modules most programs start with (and what they import: re, random, fractions, ...), imported
# once at boot so that they are in the boot image: a stateless request starts from the image, so without this every
# request paid for their import (`import csv, statistics` ~110 ms). Each request still sees them pristine (it runs in
# a fresh instance or one reset to the image); after_restore re-seeds random.
PRELOADED = ('json', 're', 'datetime', 'collections', 'itertools', 'functools', 'math', 'statistics', 'csv',
             'decimal', 'typing', 'dataclasses', 'pathlib')


def _preload():
    for name in PRELOADED:
        try:
            __import__(name)
        except Exception:   # a module that fails here fails again, with its traceback, when the program imports it
            pass


_setup()
# Start in /workspace: the boot image is taken with /workspace mounted, so every instance started from it (a context,
# or a stateless request with its disabled /workspace) reports os.getcwd() == '/workspace' even while the workspace
# is disabled and chdir() there fails (protocol §10.5 item 122).
try:
    os.chdir(WORKSPACE)
except OSError:
    pass
_preload()
