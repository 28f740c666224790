# POSIX for the sandbox's Perl (engines/perl/README.md, "POSIX and Storable").
#
# zeroperl links no POSIX extension, and the module cannot be added to a prebuilt wasm module, so this is our own
# implementation, in Perl, of the part of POSIX that programs reach for: the C math functions, strftime/mktime and
# the other time functions, strtol/strtod, the limits and float constants, the errno, fcntl, signal, locale and wait
# macros. Values are the platform's (wasm32-wasi: a C long is 32 bits; errno and open flags are WASI's, read from
# Errno and Fcntl, which are zeroperl's own). What is exact: rounding, fmod, frexp/ldexp, the limits, the time
# functions (the sandbox's clock is UTC); the transcendental functions are computed from Perl's builtins (sin, cos,
# exp, log, sqrt, atan2) and may differ from C's libm in the last bit. A POSIX function this module does not provide
# (processes, terminals, file descriptors, signal handlers) is a clear error when called, not an unknown import.
package POSIX;
use strict;
use warnings;
no warnings qw(portable experimental::builtin);
our $VERSION = '2.23_sw';

use Exporter 'import';
use Carp ();
use Errno ();
use Fcntl ();

# ---- limits.h (wasm32: char is signed, long and size_t are 32 bits) -------------------------------------------------
my %limits = (
  CHAR_BIT => 8, CHAR_MAX => 127, CHAR_MIN => -128, SCHAR_MAX => 127, SCHAR_MIN => -128, UCHAR_MAX => 255,
  SHRT_MAX => 32767, SHRT_MIN => -32768, USHRT_MAX => 65535,
  INT_MAX => 2147483647, INT_MIN => -2147483648, UINT_MAX => 4294967295,
  LONG_MAX => 2147483647, LONG_MIN => -2147483648, ULONG_MAX => 4294967295,
  SSIZE_MAX => 2147483647, MB_LEN_MAX => 4, PATH_MAX => 4096, NAME_MAX => 255, ARG_MAX => 131072,
);
# ---- float.h (IEEE 754 binary64 and binary32) ---------------------------------------------------------------------
my %float = (
  DBL_MAX => (2 - 2**-52) * 2**1023, DBL_MIN => 2**-1022, DBL_EPSILON => 2**-52, DBL_DIG => 15, DBL_MANT_DIG => 53,
  DBL_MAX_EXP => 1024, DBL_MIN_EXP => -1021, DBL_MAX_10_EXP => 308, DBL_MIN_10_EXP => -307,
  FLT_MAX => (2 - 2**-23) * 2**127, FLT_MIN => 2**-126, FLT_EPSILON => 2**-23, FLT_DIG => 6, FLT_MANT_DIG => 24,
  FLT_MAX_EXP => 128, FLT_MIN_EXP => -125, FLT_MAX_10_EXP => 38, FLT_MIN_10_EXP => -37, FLT_RADIX => 2, FLT_ROUNDS => 1,
);
# ---- stdlib.h, stdio.h, time.h --------------------------------------------------------------------------------------
my %misc = (
  EXIT_SUCCESS => 0, EXIT_FAILURE => 1, RAND_MAX => 2147483647, MB_CUR_MAX => 4,
  BUFSIZ => 1024, EOF => -1, FILENAME_MAX => 4096, L_tmpnam => 20, TMP_MAX => 10000,
  CLOCKS_PER_SEC => 1000000,
  STDIN_FILENO => 0, STDOUT_FILENO => 1, STDERR_FILENO => 2,
  R_OK => 4, W_OK => 2, X_OK => 1, F_OK => 0,
);
# ---- signal.h (wasi-libc's numbering), locale.h (wasi-libc's), sys/wait.h -------------------------------------------
my @signals = qw(SIGHUP SIGINT SIGQUIT SIGILL SIGTRAP SIGABRT SIGBUS SIGFPE SIGKILL SIGUSR1 SIGSEGV SIGUSR2 SIGPIPE
                 SIGALRM SIGTERM SIGSTKFLT SIGCHLD SIGCONT SIGSTOP SIGTSTP SIGTTIN SIGTTOU SIGURG SIGXCPU SIGXFSZ
                 SIGVTALRM SIGPROF SIGWINCH SIGIO SIGPWR SIGSYS);
my %signal = map { ($signals[$_] => $_ + 1) } 0 .. $#signals;
my %locale = (LC_CTYPE => 0, LC_NUMERIC => 1, LC_TIME => 2, LC_COLLATE => 3, LC_MONETARY => 4, LC_MESSAGES => 5,
              LC_ALL => 6);
my %wait = (WNOHANG => 1, WUNTRACED => 2);

{
  no strict 'refs';
  for my $table (\%limits, \%float, \%misc, \%signal, \%locale, \%wait) {
    for my $name (keys %$table) { my $v = $table->{$name}; *{$name} = sub () { $v } }
  }
}

# ---- errno.h and fcntl.h: the platform's values, from zeroperl's own Errno and Fcntl --------------------------------
{
  no strict 'refs';
  my @errno = grep { /^E[A-Z0-9]+$/ && $_ ne 'EXISTS' && defined &{"Errno::$_"} } keys %Errno::;
  for my $name (@errno) { my $v = &{"Errno::$name"}(); *{$name} = sub () { $v } }
  my @fcntl = grep { /^(?:O_|F_|FD_|SEEK_|S_I[RWX])[A-Z]+$/ && eval { my $v = &{"Fcntl::$_"}(); 1 } }
    @Fcntl::EXPORT, @Fcntl::EXPORT_OK;
  my %seen;
  for my $name (grep { !$seen{$_}++ } @fcntl) { my $v = &{"Fcntl::$name"}(); *{$name} = sub () { $v } }
}

# ---- math.h -----------------------------------------------------------------------------------------------------
my $INF = 9**9**9;
my $NAN = $INF - $INF;
# A number as given: Perl's arithmetic takes an integral double down its integer path, which loses -0.0 (0 + $x
# would), so numbers pass through untouched and only strings are converted.
sub _num { my $x = shift; builtin::created_as_number($x) ? $x : 0 + $x }
sub _isnan { $_[0] != $_[0] }
# A zero result keeps the sign of x, as C's rounding functions do (Perl's int(-0.5) is 0).
sub _z { my ($r, $x) = @_; $r == 0 && $x < 0 ? -0.0 : $r }
sub _isinf { my $x = shift; !_isnan($x) && ($x == $INF || $x == -$INF) }
sub _special { my $x = shift; _isnan($x) || _isinf($x) }

sub floor { my $x = _num(shift); return $x if $x == 0 || _special($x); my $i = int($x); $i > $x ? $i - 1 : $i }
sub ceil  { my $x = _num(shift); return $x if $x == 0 || _special($x); my $i = int($x); _z($i < $x ? $i + 1 : $i, $x) }
sub trunc { my $x = _num(shift); $x == 0 || _special($x) ? $x : _z(int($x), $x) }
# Half away from zero. x - int(x) is exact below 2**52; above it every double is an integer.
sub round {
  my $x = _num(shift);
  return $x if $x == 0 || _special($x);
  my $i = int($x);
  _z(abs($x - $i) >= 0.5 ? $i + ($x < 0 ? -1 : 1) : $i, $x);
}
sub lround { my $r = round(@_); _special($r) ? $r : int($r) }
# Half to even (the default rounding mode).
sub rint {
  my $x = _num(shift);
  return $x if $x == 0 || _special($x);
  my $i = int($x);
  my $f = abs($x - $i);
  return _z($i, $x) if $f < 0.5;
  my $away = $i + ($x < 0 ? -1 : 1);
  return $away if $f > 0.5;
  _z(fmod($i, 2) == 0 ? $i : $away, $x);
}
sub nearbyint { rint(@_) }
sub lrint { my $r = rint(@_); _special($r) ? $r : int($r) }
# Exact: each step subtracts y * 2**k from a remainder below 2 * y * 2**k (no rounding, Sterbenz).
sub fmod {
  my ($x, $y) = (_num($_[0]), _num($_[1]));
  return $NAN if _isnan($x) || _isnan($y) || _isinf($x) || $y == 0;
  return $x if _isinf($y);
  my ($r, $ay) = (abs($x), abs($y));
  return $x if $r < $ay;
  while ($r >= $ay) {
    my $d = $ay;
    $d *= 2 while $d * 2 <= $r;
    $r -= $d;
  }
  $x < 0 ? -$r : $r;
}
sub remainder {
  my ($x, $y) = (_num($_[0]), _num($_[1]));
  my $r = fmod($x, $y);
  return $r if _special($r);
  my $ay = abs($y);
  my $ar = abs($r);
  my $q = int(abs($x) / $ay);    # only its parity matters when |r| == |y| / 2
  if ($ar > $ay / 2 || ($ar == $ay / 2 && $q % 2 == 1)) { $ar -= $ay }
  $ar == 0 ? (signbit($x) ? -0.0 : 0.0) : $x < 0 ? -$ar : $ar;
}
sub modf {
  my $x = _num(shift);
  return ($x, $x) if $x == 0 || _isnan($x);
  return (signbit($x) ? -0.0 : 0.0, $x) if _isinf($x);
  my $i = int($x);
  my $f = $x - $i;
  ($f == 0 ? ($x < 0 ? -0.0 : 0.0) : $f, $i);
}
sub frexp {
  my $x = _num(shift);
  return ($x, 0) if $x == 0 || _special($x);
  my ($m, $e) = (abs($x), 0);
  if ($m < 2**-1000) { $m *= 2**64; $e -= 64 }
  while ($m >= 1) { $m /= 2; $e++ }
  while ($m < 0.5) { $m *= 2; $e-- }
  ($x < 0 ? -$m : $m, $e);
}
sub ldexp {
  my ($x, $e) = (_num($_[0]), int($_[1]));
  return $x if $x == 0 || _special($x);
  while ($e > 1000)  { $x *= 2**1000;  $e -= 1000 }
  while ($e < -1000) { $x *= 2**-1000; $e += 1000; last if $x == 0 }
  $x * 2**$e;
}
sub scalbn { ldexp(@_) }
sub ilogb { my ($m, $e) = frexp($_[0]); $e - 1 }
sub logb  { my $x = _num(shift); return -$INF if $x == 0; return abs($x) if _special($x); ilogb($x) }
sub fabs  { abs(_num(shift)) }
sub pow   { (_num($_[0])) ** (_num($_[1])) }
sub exp2  { 2 ** (_num(shift)) }
sub copysign { my ($x, $y) = (abs(_num($_[0])), _num($_[1])); signbit($y) ? -$x : $x }
sub signbit  { my $x = _num(shift); (unpack('C', pack('d>', $x)) & 0x80) ? 1 : 0 }
sub isnan    { _isnan(_num(shift)) ? 1 : 0 }
sub isinf    { _isinf(_num(shift)) ? 1 : 0 }
sub isfinite { _special(_num(shift)) ? 0 : 1 }
sub isnormal { my $x = abs(_num(shift)); (!_special($x) && $x >= 2**-1022) ? 1 : 0 }
sub fmin { my ($x, $y) = (_num($_[0]), _num($_[1])); _isnan($x) ? $y : _isnan($y) ? $x : $x < $y ? $x : $y }
sub fmax { my ($x, $y) = (_num($_[0]), _num($_[1])); _isnan($x) ? $y : _isnan($y) ? $x : $x > $y ? $x : $y }
sub fdim { my ($x, $y) = (_num($_[0]), _num($_[1])); _isnan($x) || _isnan($y) ? $NAN : $x > $y ? $x - $y : 0 }
sub fma  { (_num($_[0])) * (_num($_[1])) + (_num($_[2])) }
sub nan  { $NAN }
sub hypot {
  my ($x, $y) = (abs(_num($_[0])), abs(_num($_[1])));
  return $INF if _isinf($x) || _isinf($y);
  return $NAN if _isnan($x) || _isnan($y);
  ($x, $y) = ($y, $x) if $y > $x;
  return $x if $y == 0;
  my $r = $y / $x;
  $x * sqrt(1 + $r * $r);
}
# Exact powers come out exact (log(1000)/log(10) alone is 2.9999999999999996).
sub _log_base {
  my ($x, $base) = @_;
  return $NAN if $x < 0 || _isnan($x);
  return -$INF if $x == 0;
  return $x if _isinf($x);
  my $r = log($x) / log($base);
  my $k = int($r + ($r < 0 ? -0.5 : 0.5));
  ($k >= -1074 && $k <= 1023 && $base ** $k == $x) ? $k : $r;
}
sub log10 { _log_base(_num(shift), 10) }
sub log2  { _log_base(_num(shift), 2) }
# Accurate near 0: Goldberg's log1p and Kahan's expm1.
sub log1p { my $x = _num(shift); my $u = 1 + $x; $u == 1 ? $x : _special($u) || $u <= 0 ? log($u) : log($u) * $x / ($u - 1) }
sub expm1 {
  my $x = _num(shift);
  my $u = exp($x);
  return $x if $u == 1;
  my $um1 = $u - 1;
  return $um1 if $um1 == -1 || _isinf($u);
  $um1 * $x / log($u);
}
sub cbrt {
  my $x = _num(shift);
  return $x if $x == 0 || _special($x);
  my $y = abs($x) ** (1 / 3);
  $y = $y - ($y * $y * $y - abs($x)) / (3 * $y * $y);    # one Newton step
  $x < 0 ? -$y : $y;
}
sub tan   { my $x = _num(shift); sin($x) / cos($x) }
sub atan  { atan2(_num(shift), 1) }
sub asin  { my $x = _num(shift); return $NAN if abs($x) > 1 || _isnan($x); atan2($x, sqrt((1 - $x) * (1 + $x))) }
sub acos  { my $x = _num(shift); return $NAN if abs($x) > 1 || _isnan($x); atan2(sqrt((1 - $x) * (1 + $x)), $x) }
sub sinh  { my $x = _num(shift); return $x if $x == 0 || _special($x); abs($x) < 1 ? (expm1($x) - expm1(-$x)) / 2 : (exp($x) - exp(-$x)) / 2 }
sub cosh  { my $x = _num(shift); return abs($x) if _special($x); (exp($x) + exp(-$x)) / 2 }
sub tanh  {
  my $x = _num(shift);
  return $x if $x == 0 || _isnan($x);
  return $x > 0 ? 1 : -1 if abs($x) > 22;
  my $e = expm1(2 * $x);
  $e / ($e + 2);
}
sub asinh { my $x = _num(shift); return $x if $x == 0 || _special($x); my $a = abs($x); my $r = $a > 2**28 ? log($a) + log(2) : log1p($a + $a * $a / (1 + sqrt(1 + $a * $a))); $x < 0 ? -$r : $r }
sub acosh { my $x = _num(shift); return $NAN if $x < 1 || _isnan($x); return $x if _isinf($x); $x > 2**28 ? log($x) + log(2) : log1p($x - 1 + sqrt(($x - 1) * ($x + 1))) }
sub atanh { my $x = _num(shift); return $NAN if abs($x) > 1 || _isnan($x); return $x > 0 ? $INF : -$INF if abs($x) == 1; 0.5 * log1p(2 * $x / (1 - $x)) }
my $PI = 4 * atan2(1, 1);
my %mathconst = (
  M_PI => $PI, M_PI_2 => $PI / 2, M_PI_4 => $PI / 4, M_1_PI => 1 / $PI, M_2_PI => 2 / $PI,
  M_2_SQRTPI => 2 / sqrt($PI), M_E => exp(1), M_LN2 => log(2), M_LN10 => log(10), M_LOG2E => 1 / log(2),
  M_LOG10E => 1 / log(10), M_SQRT2 => sqrt(2), M_SQRT1_2 => sqrt(0.5),
  HUGE_VAL => $INF, INFINITY => $INF, NAN => $NAN,
  FP_NAN => 0, FP_INFINITE => 1, FP_ZERO => 2, FP_SUBNORMAL => 3, FP_NORMAL => 4,
  FP_ILOGB0 => -2147483648, FP_ILOGBNAN => -2147483648,
);
{
  no strict 'refs';
  for my $name (keys %mathconst) { my $v = $mathconst{$name}; *{$name} = sub () { $v } }
}
sub fpclassify {
  my $x = _num(shift);
  _isnan($x) ? 0 : _isinf($x) ? 1 : $x == 0 ? 2 : abs($x) < 2**-1022 ? 3 : 4;
}
sub isunordered    { _isnan(_num($_[0])) || _isnan(_num($_[1])) ? 1 : 0 }
sub isgreater      { !isunordered(@_) && $_[0] > $_[1] ? 1 : 0 }
sub isgreaterequal { !isunordered(@_) && $_[0] >= $_[1] ? 1 : 0 }
sub isless         { !isunordered(@_) && $_[0] < $_[1] ? 1 : 0 }
sub islessequal    { !isunordered(@_) && $_[0] <= $_[1] ? 1 : 0 }
sub islessgreater  { !isunordered(@_) && $_[0] != $_[1] ? 1 : 0 }
# The next double after x towards y: the bits of a double, as an integer, are ordered like its magnitude.
sub nextafter {
  my ($x, $y) = (_num($_[0]), _num($_[1]));
  return $x + $y if _isnan($x) || _isnan($y);
  return $y if $x == $y;
  return ($y > 0 ? 1 : -1) * 2**-1074 if $x == 0;
  my $bits = unpack('Q>', pack('d>', abs($x)));
  $bits += (($y > $x) == ($x > 0)) ? 1 : -1;
  my $r = unpack('d>', pack('Q>', $bits));
  $x < 0 ? -$r : $r;
}
sub nexttoward { nextafter(@_) }

# ---- stdlib.h: strtol, strtoul, strtod (list context: the value and how many characters were not parsed) ----------
sub _strtoint {
  my ($str, $base, $unsigned) = @_;
  $str = '' unless defined $str;
  $base = 10 unless defined $base;
  if ($base != 0 && ($base < 2 || $base > 36)) { $! = Errno::EINVAL(); return wantarray ? (0, length $str) : 0 }
  my $s = $str;
  $s =~ s/^\s+//;
  my $neg = $s =~ s/^([+-])// && $1 eq '-';
  if (($base == 0 || $base == 16) && $s =~ /^0[xX][0-9a-fA-F]/) { $s = substr($s, 2); $base = 16 }
  elsif ($base == 0) { $base = $s =~ /^0/ ? 8 : 10 }
  my $digits = substr('0123456789abcdefghijklmnopqrstuvwxyz', 0, $base);
  my ($n, $used) = (0, 0);
  my ($max) = $unsigned ? ULONG_MAX() : $neg ? -LONG_MIN() : LONG_MAX();
  my $overflow = 0;
  while ($used < length $s) {
    my $d = index($digits, lc substr($s, $used, 1));
    last if $d < 0;
    $n = $n * $base + $d;
    $overflow = 1 if $n > $max;
    $used++;
  }
  return wantarray ? (0, length $str) : 0 unless $used;
  my $rest = length($s) - $used;
  if ($overflow) { $! = Errno::ERANGE(); $n = $unsigned ? ULONG_MAX() : $neg ? LONG_MIN() : LONG_MAX() }
  else { $n = $unsigned ? ($neg ? (ULONG_MAX() + 1 - $n) % (ULONG_MAX() + 1) : $n) : ($neg ? -$n : $n) }
  wantarray ? ($n, $rest) : $n;
}
sub strtol  { _strtoint($_[0], $_[1], 0) }
sub strtoul { _strtoint($_[0], $_[1], 1) }
sub strtod {
  my $str = defined $_[0] ? $_[0] : '';
  my ($m, $v);
  if ($str =~ /^(\s*([+-]?)0[xX](?=\.?[0-9a-fA-F])([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?\d+))?)/) {
    my ($sign, $int, $frac, $exp) = ($2, $3, defined $4 ? $4 : '', defined $5 ? $5 : 0);
    $m = $1;
    $v = 0;
    $v = $v * 16 + hex($_) for split //, $int . $frac;
    $v = ldexp($v, $exp - 4 * length $frac);
    $v = -$v if $sign eq '-';
  } elsif ($str =~ /^(\s*[+-]?(?:inf(?:inity)?|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))/i) {
    $m = $1;
    $v = $m =~ /inf/i ? ($m =~ /-/ ? -$INF : $INF) : $m =~ /nan/i ? $NAN : 0 + $m;
  } else {
    return wantarray ? (0, length $str) : 0;
  }
  wantarray ? ($v, length($str) - length($m)) : $v;
}
sub abort { die "abort() called\n" }

# ---- time.h: the sandbox's clock is UTC (no time zone database, TZ unset) -----------------------------------------
# Days since 1970-01-01 of a proleptic Gregorian date, for any month (normalised like mktime's fields).
sub _days {
  my ($y, $m, $d) = @_;    # full year, month 0-based (any integer), day of month
  $y += floor($m / 12);
  $m = $m - 12 * floor($m / 12);
  $y-- if $m < 2;
  my $era = floor($y / 400);
  my $yoe = $y - $era * 400;
  my $mp = ($m + 10) % 12;    # months from March
  my $doy = int((153 * $mp + 2) / 5) + $d - 1;
  my $doe = $yoe * 365 + int($yoe / 4) - int($yoe / 100) + $doy;
  $era * 146097 + $doe - 719468;
}
sub _epoch {
  my ($sec, $min, $hour, $mday, $mon, $year) = map { defined $_ ? int($_) : 0 } @_[0 .. 5];
  _days($year + 1900, $mon, $mday) * 86400 + $hour * 3600 + $min * 60 + $sec;
}
sub mktime {
  Carp::croak('Usage: POSIX::mktime(sec, min, hour, mday, mon, year, wday = 0, yday = 0, isdst = -1)') if @_ < 6;
  my $t = _epoch(@_);
  $t == -1 ? undef : $t;    # C's mktime answers -1 for an error, which POSIX reports as undef
}
sub strftime {
  Carp::croak('Usage: POSIX::strftime(fmt, sec, min, hour, mday, mon, year, wday = -1, yday = -1, isdst = -1)')
    if @_ < 7;
  my $fmt = shift;
  require Time::Piece;    # its XS calls the C library's strftime
  Time::Piece::_strftime($fmt, _epoch(@_), 0);
}
sub asctime { strftime("%a %b %e %H:%M:%S %Y\n", @_) }
sub ctime { asctime(gmtime(defined $_[0] ? $_[0] : time)) }
sub difftime { $_[0] - $_[1] }
sub tzset { 1 }
sub tzname { ('UTC', 'UTC') }
sub clock { Carp::croak('POSIX::clock is not available in this sandbox (no process CPU clock)') }

# ---- unistd.h, sys/wait.h, locale.h, string.h, ctype-free helpers -------------------------------------------------
sub _exit { exit(@_ ? $_[0] : 0) }
sub getpid { $$ }
sub getppid { 0 }
sub isatty { 0 }
{ no strict 'refs'; *{'sleep'} = sub { 0 } }    # returns at once, like the sandbox's sleep
sub uname { require Sys::Hostname; ('wasi', scalar Sys::Hostname::hostname(), '', '', 'wasm32') }
sub WIFEXITED   { (($_[0] & 0x7f) == 0) ? 1 : 0 }
sub WEXITSTATUS { ($_[0] >> 8) & 0xff }
sub WIFSIGNALED { (($_[0] & 0x7f) != 0 && ($_[0] & 0x7f) != 0x7f) ? 1 : 0 }
sub WTERMSIG    { $_[0] & 0x7f }
sub WIFSTOPPED  { (($_[0] & 0xff) == 0x7f) ? 1 : 0 }
sub WSTOPSIG    { ($_[0] >> 8) & 0xff }
# Only the C locale exists here.
sub setlocale {
  my ($category, $name) = @_;
  return 'C' if !defined $name || $name eq '' || $name eq 'C' || $name eq 'POSIX' || $name =~ /^C\.UTF-?8$/i;
  undef;
}
sub localeconv { { decimal_point => '.', thousands_sep => '', grouping => '' } }
sub strerror { local $! = _num(shift); "$!" }
sub strstr { index($_[0], $_[1]) }
sub errno { 0 + $! }

# ---- what a sandbox has no use for: a clear error when called ----------------------------------------------------
my @unavailable = qw(fork setsid setpgid getpgrp tcgetpgrp tcsetpgrp pipe dup dup2 close open read write lseek
                     mkfifo nice pause alarm sigaction sigprocmask sigpending sigsuspend ttyname ctermid cuserid
                     access sysconf pathconf fpathconf times wait waitpid kill raise execv execvp setuid setgid
                     getlogin tmpnam mblen mbtowc wctomb strcoll strxfrm erf erfc lgamma tgamma);
{
  no strict 'refs';
  for my $name (@unavailable) {
    next if defined &{$name};
    *{$name} = sub { Carp::croak("POSIX::$name is not available in this sandbox (engines/perl/README.md)") };
  }
}

# What `use POSIX qw(:tag)` and a plain `use POSIX` import: POSIX's own tag lists (perldoc POSIX), less what this
# module does not define (an errno or fcntl name the platform lacks, ctype, termios, ...). Like POSIX's, the default
# import is every tag but the C99 ones, and names of Perl builtins (open, close, sleep, ...) are in no default tag.
my %TAGS = (
  errno_h => [qw(E2BIG EACCES EADDRINUSE EADDRNOTAVAIL EAFNOSUPPORT EAGAIN EALREADY EBADF EBADMSG EBUSY ECANCELED
    ECHILD ECONNABORTED ECONNREFUSED ECONNRESET EDEADLK EDESTADDRREQ EDOM EDQUOT EEXIST EFAULT EFBIG EHOSTDOWN
    EHOSTUNREACH EIDRM EILSEQ EINPROGRESS EINTR EINVAL EIO EISCONN EISDIR ELOOP EMFILE EMLINK EMSGSIZE ENAMETOOLONG
    ENETDOWN ENETRESET ENETUNREACH ENFILE ENOBUFS ENODATA ENODEV ENOENT ENOEXEC ENOLCK ENOLINK ENOMEM ENOMSG
    ENOPROTOOPT ENOSPC ENOSR ENOSTR ENOSYS ENOTBLK ENOTCONN ENOTDIR ENOTEMPTY ENOTRECOVERABLE ENOTSOCK ENOTSUP ENOTTY
    ENXIO EOPNOTSUPP EOTHER EOVERFLOW EOWNERDEAD EPERM EPFNOSUPPORT EPIPE EPROCLIM EPROTO EPROTONOSUPPORT EPROTOTYPE
    ERANGE EREMOTE ERESTART EROFS ESHUTDOWN ESOCKTNOSUPPORT ESPIPE ESRCH ESTALE ETIME ETIMEDOUT ETOOMANYREFS ETXTBSY
    EUSERS EWOULDBLOCK EXDEV errno)],
  fcntl_h => [qw(FD_CLOEXEC F_DUPFD F_GETFD F_GETFL F_GETLK F_RDLCK F_SETFD F_SETFL F_SETLK F_SETLKW F_UNLCK F_WRLCK
    O_ACCMODE O_APPEND O_CREAT O_EXCL O_NOCTTY O_NONBLOCK O_RDONLY O_RDWR O_TRUNC O_WRONLY creat SEEK_CUR SEEK_END
    SEEK_SET S_IRGRP S_IROTH S_IRUSR S_IRWXG S_IRWXO S_IRWXU S_ISBLK S_ISCHR S_ISDIR S_ISFIFO S_ISGID S_ISREG S_ISUID
    S_IWGRP S_IWOTH S_IWUSR)],
  float_h => [qw(DBL_DIG DBL_EPSILON DBL_MANT_DIG DBL_MAX DBL_MAX_10_EXP DBL_MAX_EXP DBL_MIN DBL_MIN_10_EXP
    DBL_MIN_EXP FLT_DIG FLT_EPSILON FLT_MANT_DIG FLT_MAX FLT_MAX_10_EXP FLT_MAX_EXP FLT_MIN FLT_MIN_10_EXP FLT_MIN_EXP
    FLT_RADIX FLT_ROUNDS)],
  limits_h => [qw(ARG_MAX CHAR_BIT CHAR_MAX CHAR_MIN INT_MAX INT_MIN LONG_MAX LONG_MIN MB_LEN_MAX NAME_MAX PATH_MAX
    SCHAR_MAX SCHAR_MIN SHRT_MAX SHRT_MIN SSIZE_MAX UCHAR_MAX UINT_MAX ULONG_MAX USHRT_MAX)],
  locale_h => [qw(LC_ALL LC_COLLATE LC_CTYPE LC_MESSAGES LC_MONETARY LC_NUMERIC LC_TIME localeconv setlocale)],
  math_h => [qw(FP_ILOGB0 FP_ILOGBNAN FP_INFINITE FP_NAN FP_NORMAL FP_SUBNORMAL FP_ZERO M_1_PI M_2_PI M_2_SQRTPI M_E
    M_LN10 M_LN2 M_LOG10E M_LOG2E M_PI M_PI_2 M_PI_4 M_SQRT1_2 M_SQRT2 HUGE_VAL INFINITY NAN acos asin atan ceil cosh
    fabs floor fmod frexp ldexp log10 modf pow sinh tan tanh)],
  math_h_c99 => [qw(FP_ILOGB0 FP_ILOGBNAN FP_INFINITE FP_NAN FP_NORMAL FP_SUBNORMAL FP_ZERO M_1_PI M_2_PI M_2_SQRTPI
    M_E M_LN10 M_LN2 M_LOG10E M_LOG2E M_PI M_PI_2 M_PI_4 M_SQRT1_2 M_SQRT2 HUGE_VAL INFINITY NAN acos asin atan ceil
    cosh fabs floor fmod frexp ldexp log10 modf pow sinh tan tanh acosh asinh atanh cbrt copysign erf erfc exp2 expm1
    fdim fma fmax fmin fpclassify hypot ilogb isfinite isgreater isgreaterequal isinf isless islessequal islessgreater
    isnan isnormal isunordered lgamma log1p log2 logb lrint lround nan nearbyint nextafter nexttoward remainder rint
    round scalbn signbit tgamma trunc)],
  signal_h => [qw(SIGABRT SIGALRM SIGCHLD SIGCONT SIGFPE SIGHUP SIGILL SIGINT SIGKILL SIGPIPE SIGQUIT SIGSEGV SIGSTOP
    SIGTERM SIGTSTP SIGTTIN SIGTTOU SIGUSR1 SIGUSR2 SIGBUS SIGPROF SIGSYS SIGTRAP SIGURG SIGVTALRM SIGXCPU SIGXFSZ
    raise sigaction sigpending sigprocmask sigsuspend)],
  stdio_h => [qw(BUFSIZ EOF FILENAME_MAX SEEK_CUR SEEK_END SEEK_SET TMP_MAX tmpnam)],
  stdlib_h => [qw(EXIT_FAILURE EXIT_SUCCESS MB_CUR_MAX RAND_MAX abort mblen mbtowc strtod strtol strtoul wctomb)],
  stdlib_h_c99 => [qw(EXIT_FAILURE EXIT_SUCCESS MB_CUR_MAX RAND_MAX abort mblen mbtowc strtod strtol strtoul wctomb)],
  string_h => [qw(strcoll strerror strstr strxfrm)],
  sys_stat_h => [qw(S_IRGRP S_IROTH S_IRUSR S_IRWXG S_IRWXO S_IRWXU S_ISBLK S_ISCHR S_ISDIR S_ISFIFO S_ISGID S_ISREG
    S_ISUID S_IWGRP S_IWOTH S_IWUSR S_IXGRP S_IXOTH S_IXUSR mkfifo)],
  sys_utsname_h => [qw(uname)],
  sys_wait_h => [qw(WEXITSTATUS WIFEXITED WIFSIGNALED WIFSTOPPED WNOHANG WSTOPSIG WTERMSIG WUNTRACED)],
  time_h => [qw(CLOCKS_PER_SEC asctime clock ctime difftime mktime strftime tzset tzname)],
  unistd_h => [qw(F_OK R_OK SEEK_CUR SEEK_END SEEK_SET STDERR_FILENO STDIN_FILENO STDOUT_FILENO W_OK X_OK _exit access
    ctermid cuserid dup2 dup execv execvp fpathconf getpid isatty lseek pathconf pause setgid setpgid setsid setuid
    sysconf tcgetpgrp tcsetpgrp ttyname)],
);
my @DEFAULT_TAGS = qw(errno_h fcntl_h float_h limits_h locale_h math_h signal_h stdio_h stdlib_h string_h sys_stat_h sys_utsname_h sys_wait_h time_h unistd_h);
our %EXPORT_TAGS;
{
  no strict 'refs';
  %EXPORT_TAGS = map { my $tag = $_; ($tag => [grep { defined &{$_} } @{ $TAGS{$tag} }]) } keys %TAGS;
}
my %default;
$default{$_} = 1 for map { @{ $EXPORT_TAGS{$_} } } @DEFAULT_TAGS;
our @EXPORT = sort keys %default;
my %ok;
$ok{$_} = 1 for map { @$_ } values %EXPORT_TAGS;
our @EXPORT_OK = sort(grep { !$default{$_} } keys %ok, @unavailable, qw(errno fabs sleep));

our $AUTOLOAD;
sub AUTOLOAD {
  my $name = $AUTOLOAD;
  $name =~ s/.*:://;
  return if $name eq 'DESTROY';
  Carp::croak("POSIX::$name is not available in this sandbox (engines/perl/README.md)");
}

1;
