# frozen_string_literal: true
#
# BigDecimal for the sandbox's Ruby, written in Ruby (engines/ruby/README.md, "BigDecimal").
#
# ruby.wasm links no bigdecimal extension and cannot be relinked, so this file stands in for the bundled gem. It
# follows the public API of bigdecimal 4.0 as Ruby 4.0.0 bundles it: the same classes, methods, constants, modes
# and error messages. The value is held exactly as sign * mantissa * 10**exponent with an Integer mantissa (no
# trailing zeros), so + - * are exact and everything else rounds in decimal, by the rounding mode, to a number of
# significant digits. Where results depend on the C library's internals they may differ in the last digits; the
# README lists those places.

class BigDecimal < Numeric
  VERSION = "4.0.1"
  BASE = 1_000_000_000

  EXCEPTION_ALL = 0xff
  EXCEPTION_NaN = 0x02
  EXCEPTION_INFINITY = 0x01
  EXCEPTION_UNDERFLOW = 0x04
  EXCEPTION_OVERFLOW = 0x01
  EXCEPTION_ZERODIVIDE = 0x10

  ROUND_MODE = 0x100
  ROUND_UP = 1
  ROUND_DOWN = 2
  ROUND_HALF_UP = 3
  ROUND_HALF_DOWN = 4
  ROUND_CEILING = 5
  ROUND_FLOOR = 6
  ROUND_HALF_EVEN = 7

  SIGN_NaN = 0
  SIGN_POSITIVE_ZERO = 1
  SIGN_NEGATIVE_ZERO = -1
  SIGN_POSITIVE_FINITE = 2
  SIGN_NEGATIVE_FINITE = -2
  SIGN_POSITIVE_INFINITE = 3
  SIGN_NEGATIVE_INFINITE = -3

  DOUBLE_FIG = 16
  # An exponent beyond this is an overflow (Infinity) or an underflow (zero), so that a literal like "1e999999999999"
  # cannot ask for a number with that many digits.
  EXPONENT_LIMIT = 1_000_000_000

  ROUNDING_NAMES = {
    up: ROUND_UP, down: ROUND_DOWN, truncate: ROUND_DOWN, half_up: ROUND_HALF_UP, default: ROUND_HALF_UP,
    half_down: ROUND_HALF_DOWN, half_even: ROUND_HALF_EVEN, banker: ROUND_HALF_EVEN, ceiling: ROUND_CEILING,
    ceil: ROUND_CEILING, floor: ROUND_FLOOR
  }.freeze
  private_constant :DOUBLE_FIG, :EXPONENT_LIMIT, :ROUNDING_NAMES

  # Made only by BigDecimal(), the constants and arithmetic.
  private_class_method :new, :allocate

  class << self

    def double_fig = DOUBLE_FIG

    # Thread-local, as the C library's modes are.
    def mode(which, value = (getter = true; nil))
      raise TypeError, "wrong argument type #{which.class} (expected Integer)" unless which.is_a?(Integer)
      if which == ROUND_MODE
        return _rounding_mode if getter
        Thread.current[:__bigdecimal_rounding_mode__] = _check_rounding_mode(value) unless value.nil?
        return _rounding_mode
      end
      raise TypeError, "first argument for BigDecimal.mode invalid" unless (which & ~EXCEPTION_ALL).zero?
      return _exception_mode & which if getter
      raise ArgumentError, "second argument must be true or false" unless value == true || value == false
      current = _exception_mode
      current = value ? (current | which) : (current & ~which)
      Thread.current[:__bigdecimal_exception_mode__] = current
      current
    end

    def limit(n = nil)
      old = Thread.current[:__bigdecimal_precision_limit__] || 0
      unless n.nil?
        raise TypeError, "wrong argument type #{n.class} (expected Integer)" unless n.is_a?(Integer)
        raise ArgumentError, "argument must be positive" if n < 0
        Thread.current[:__bigdecimal_precision_limit__] = n
      end
      old
    end

    def save_rounding_mode
      saved = _rounding_mode
      yield
    ensure
      Thread.current[:__bigdecimal_rounding_mode__] = saved
    end

    def save_exception_mode
      saved = _exception_mode
      yield
    ensure
      Thread.current[:__bigdecimal_exception_mode__] = saved
    end

    def save_limit
      saved = limit
      yield
    ensure
      Thread.current[:__bigdecimal_precision_limit__] = saved
    end

    # What String#to_d uses: the longest valid prefix, or zero.
    def interpret_loosely(str)
      _parse(str.to_s, loose: true) || _zero(1)
    end

    def _load(str)
      BigDecimal(str.to_s.split(":", 2).last)
    end

    # --- internal ------------------------------------------------------------------------------------------------

    def _rounding_mode = Thread.current[:__bigdecimal_rounding_mode__] || ROUND_HALF_UP
    def _exception_mode = Thread.current[:__bigdecimal_exception_mode__] || 0

    def _check_rounding_mode(value)
      case value
      when Integer
        return value if value.between?(ROUND_UP, ROUND_HALF_EVEN)
        raise ArgumentError, "invalid rounding mode"
      when Symbol
        ROUNDING_NAMES.fetch(value) { raise ArgumentError, "invalid rounding mode" }
      when nil
        _rounding_mode
      else
        raise TypeError, "no implicit conversion of #{value.class} into Integer"
      end
    end

    def _half_mode(half)
      case half
      when nil then _rounding_mode
      when :up, "up" then ROUND_HALF_UP
      when :down, "down" then ROUND_HALF_DOWN
      when :even, "even" then ROUND_HALF_EVEN
      else raise ArgumentError, "invalid rounding mode: #{half}"
      end
    end

    def _make(sign, mant, exp)
      if mant.zero?
        return _zero(sign)
      end
      if mant % 10 == 0
        s = mant.to_s
        stripped = s.sub(/0+\z/, "")
        exp += s.length - stripped.length
        mant = stripped.to_i
      end
      digits = mant.to_s.length
      if exp + digits > EXPONENT_LIMIT
        return _special(:inf, sign, EXCEPTION_OVERFLOW)
      elsif exp + digits < -EXPONENT_LIMIT
        if _exception_mode & EXCEPTION_UNDERFLOW != 0
          raise FloatDomainError, "Exponent underflow"
        end
        return _zero(sign)
      end
      obj = allocate_raw
      obj.__send__(:_init, :finite, sign, mant, exp, digits)
    end

    def _zero(sign)
      obj = allocate_raw
      obj.__send__(:_init, :finite, sign < 0 ? -1 : 1, 0, 0, 0)
    end

    # NaN and the infinities; with the matching exception mode on they raise instead.
    def _special(kind, sign = 1, flag = nil)
      if kind == :nan && _exception_mode & EXCEPTION_NaN != 0
        raise FloatDomainError, "Computation results in 'NaN' (Not a Number)"
      end
      _special_result(kind, sign, flag)
    end

    # NaN or an infinity that arithmetic produced (the C library words a NaN here differently).
    def _computed(kind, sign = 1, flag = nil)
      if kind == :nan && _exception_mode & EXCEPTION_NaN != 0
        raise FloatDomainError, "Computation results to 'NaN'"
      end
      _special_result(kind, sign, flag)
    end

    def _special_result(kind, sign, flag)
      if kind == :inf && _exception_mode & (flag || EXCEPTION_INFINITY) != 0
        raise FloatDomainError, "Computation results in '#{sign < 0 ? '-' : ''}Infinity'"
      end
      _raw_special(kind, sign)
    end

    def _raw_special(kind, sign)
      obj = allocate_raw
      obj.__send__(:_init, kind, kind == :nan ? 1 : sign, 0, 0, 0)
    end

    def allocate_raw = allocate
    private :allocate_raw

    NUMBER = /\A[ \t\n\v\f\r]*([+-])?(?:(\d+(?:_\d+)*)_?(?:\.(\d+(?:_\d+)*)?)?|\.(\d+(?:_\d+)*))(?:[eEdD]([+-]?\d+))?[ \t\n\v\f\r]*\z/
    LOOSE = /\A[ \t\n\v\f\r]*([+-])?(\d+(?:_\d+)*)?(?:\.(\d+(?:_\d+)*))?(?:[eEdD]([+-]?\d+(?:_\d+)*))?/
    SPECIAL = /\A[ \t\n\v\f\r]*([+-])?(Infinity|NaN)[ \t\n\v\f\r]*\z/
    private_constant :NUMBER, :LOOSE, :SPECIAL

    def _parse(str, loose: false)
      if (m = SPECIAL.match(str))
        return nil if m[2] == "NaN" && m[1]
        return m[2] == "NaN" ? _special(:nan) : _special(:inf, m[1] == "-" ? -1 : 1)
      end
      if loose
        m = LOOSE.match(str)
        int = m[2] || ""
        frac = m[3] || ""
        return nil if int.empty? && frac.empty?
        exp_s = m[4]
      else
        m = NUMBER.match(str) or return nil
        return nil if m[2] && m[3].nil? && str =~ /\.[ \t\n\v\f\r]*\z/ # "1." is not a number
        int = m[2] || ""
        frac = m[3] || m[4] || ""
        exp_s = m[5]
      end
      int = int.delete("_")
      frac = frac.delete("_")
      exp = exp_s ? exp_s.delete("_").to_i : 0
      sign = m[1] == "-" ? -1 : 1
      digits = (int + frac).sub(/\A0+/, "")
      return _zero(sign) if digits.empty?
      _make(sign, digits.to_i, exp - frac.length)
    end

    # A Float at `prec` significant digits (correctly rounded from its binary value); 0: its shortest decimal form,
    # cut (not rounded) to 16 digits, as the C library does for BigDecimal(f, 0), Float#to_d and a Float operand.
    def _from_float(f, prec)
      return _special(:nan) if f.nan?
      return _special(:inf, f < 0 ? -1 : 1) if f.infinite?
      return _zero((1.0 / f) < 0 ? -1 : 1) if f.zero?
      if prec.zero?
        # The shortest digits that read back as the same Float, at most 16 of them.
        m = /\A(-)?(\d+)\.(\d+)(?:e([+-]\d+))?\z/.match(f.to_s)
        frac = m[3] == "0" ? "" : m[3]
        return _make(m[1] ? -1 : 1, (m[2] + frac).to_i, m[4].to_i - frac.length)._round_sig(DOUBLE_FIG, ROUND_DOWN)
      end
      m = /\A(-)?(\d)\.?(\d*)e([+-]\d+)\z/.match(format("%.#{prec - 1}e", f))
      _make(m[1] ? -1 : 1, (m[2] + m[3]).to_i, m[4].to_i - m[3].length)
    end

    def _from_rational(r, prec)
      num = r.numerator
      den = r.denominator
      sign = num < 0 ? -1 : 1
      _divide_to(sign, num.abs, 0, den, 0, prec, _rounding_mode)
    end

    # sign * (an * 10**ae) / (bn * 10**be) to `prec` significant digits, rounded by `mode`.
    def _divide_to(sign, an, ae, bn, be, prec, mode)
      return _zero(sign) if an.zero?
      shift = prec + bn.to_s.length - an.to_s.length + 2
      if shift >= 0
        q, r = (an * 10**shift).divmod(bn)
      else
        q, r = an.divmod(bn * 10**-shift)
      end
      exp = ae - be - shift
      unless r.zero?
        # A sticky digit: what was cut off is more than nothing and never exactly a half.
        q = q * 10 + 1
        exp -= 1
      end
      _make(sign, q, exp)._round_sig(prec, mode)
    end
  end

  # --- construction ------------------------------------------------------------------------------------------------

  def _init(kind, sign, mant, exp, digits)
    @kind = kind
    @sign = sign
    @mant = mant
    @exp = exp
    @digits = digits
    freeze
  end
  private :_init

  # The parts, for other BigDecimals' arithmetic.
  attr_reader :mant, :exp
  protected :mant, :exp
  def sgn_raw = @sign
  protected :sgn_raw

  # --- predicates and parts ------------------------------------------------------------------------------------------

  def nan? = @kind == :nan
  def infinite? = @kind == :inf ? @sign : nil
  def finite? = @kind == :finite
  def zero? = @kind == :finite && @mant.zero?
  def nonzero? = zero? ? nil : self
  def positive? = @kind != :nan && !zero? && @sign > 0
  def negative? = @kind != :nan && !zero? && @sign < 0

  def sign
    case @kind
    when :nan then SIGN_NaN
    when :inf then @sign * SIGN_POSITIVE_INFINITE
    else @mant.zero? ? @sign * SIGN_POSITIVE_ZERO : @sign * SIGN_POSITIVE_FINITE
    end
  end

  def exponent = @kind == :finite && !@mant.zero? ? @digits + @exp : 0
  def n_significant_digits = @kind == :finite ? @digits : 0

  def precision
    return 0 unless @kind == :finite && !@mant.zero?
    @exp >= 0 ? @digits + @exp : [@digits, -@exp].max
  end

  def scale
    return 0 unless @kind == :finite && !@mant.zero?
    @exp < 0 ? -@exp : 0
  end

  def precision_scale = [precision, scale]

  def split
    case @kind
    when :nan then [0, "NaN", 10, 0]
    when :inf then [@sign, "Infinity", 10, 0]
    else [@sign, @mant.zero? ? "0" : @mant.to_s, 10, exponent]
    end
  end

  def hash
    case @kind
    when :finite then @mant.zero? ? 0.hash : [@sign, @mant, @exp].hash
    else [@kind, @sign].hash
    end
  end

  # --- conversion ----------------------------------------------------------------------------------------------------

  def to_s(fmt = "")
    prefix = ""
    group = 0
    fixed = false
    case fmt
    when Integer
      group = fmt
    when String
      prefix = "+" if fmt.start_with?("+")
      prefix = " " if fmt.start_with?(" ")
      group = fmt[/\d+/].to_i
      fixed = fmt.match?(/[Ff]/)
    else
      raise TypeError, "no implicit conversion of #{fmt.class} into String"
    end
    sign_s = @sign < 0 ? "-" : prefix
    out =
      case @kind
      when :nan then "NaN"
      when :inf then "#{sign_s}Infinity"
      else
        if @mant.zero?
          "#{sign_s}0.0"
        elsif fixed
          digits = @mant.to_s
          if @exp >= 0
            int_s = digits + "0" * @exp
            frac_s = "0"
          elsif -@exp >= digits.length
            int_s = "0"
            frac_s = "0" * (-@exp - digits.length) + digits
          else
            int_s = digits[0...(digits.length + @exp)]
            frac_s = digits[(digits.length + @exp)..]
          end
          if group > 0
            int_s = int_s.reverse.scan(/.{1,#{group}}/).join(" ").reverse
            frac_s = frac_s.scan(/.{1,#{group}}/).join(" ")
          end
          "#{sign_s}#{int_s}.#{frac_s}"
        else
          digits = @mant.to_s
          digits = digits.scan(/.{1,#{group}}/).join(" ") if group > 0
          "#{sign_s}0.#{digits}e#{exponent}"
        end
      end
    out.encode(Encoding::US_ASCII)
  end

  def inspect = to_s

  def _dump(_limit = nil)
    "#{((n_significant_digits + 8) / 9 + 1) * 9}:#{to_s}"
  end

  def to_i
    _check_finite_for_integer
    return 0 if @mant.zero?
    @exp >= 0 ? @sign * @mant * 10**@exp : @sign * (@mant / 10**-@exp)
  end
  alias to_int to_i

  def to_f
    case @kind
    when :nan then Float::NAN
    when :inf then @sign * Float::INFINITY
    else
      return @sign < 0 ? -0.0 : 0.0 if @mant.zero?
      e = exponent
      return @sign * Float::INFINITY if e > 309
      return @sign < 0 ? -0.0 : 0.0 if e < -330
      "#{@sign < 0 ? '-' : ''}#{@mant}e#{@exp}".to_f
    end
  end

  def to_r
    _check_finite_for_integer
    r = @exp >= 0 ? Rational(@mant * 10**@exp, 1) : Rational(@mant, 10**-@exp)
    @sign < 0 ? -r : r
  end

  def coerce(other)
    [BigDecimal._coerce_operand(other, self), self]
  end

  def self._coerce_operand(x, like)
    case x
    when BigDecimal then x
    when Integer then _make(x < 0 ? -1 : 1, x.abs, 0)
    when Float then _from_float(x, 0)
    when Rational then _from_rational(x, [like.precision, DOUBLE_FIG].max + DOUBLE_FIG)
    else raise TypeError, "#{x.nil? ? 'nil' : x.class} can't be coerced into BigDecimal"
    end
  end

  # --- arithmetic ----------------------------------------------------------------------------------------------------

  def +(other) = _binary(other, :+) { |b| _add(b, 1, _limit_prec(0)) }
  def -(other) = _binary(other, :-) { |b| _add(b, -1, _limit_prec(0)) }
  def *(other) = _binary(other, :*) { |b| _mult(b, _limit_prec(0)) }
  def /(other) = _binary(other, :/) { |b| _quo(b, nil) }

  def add(other, prec)
    _check_prec(prec)
    _binary(other, :add) { |b| _add(b, 1, _limit_prec(prec)) }
  end

  def sub(other, prec)
    _check_prec(prec)
    _binary(other, :sub) { |b| _add(b, -1, _limit_prec(prec)) }
  end

  def mult(other, prec)
    _check_prec(prec)
    _binary(other, :mult) { |b| _mult(b, _limit_prec(prec)) }
  end

  def quo(other, prec = nil)
    _check_prec(prec) if prec
    _binary(other, :quo) { |b| _quo(b, prec && prec > 0 ? prec : nil) }
  end

  # div(other): the floor of the quotient, an Integer. div(other, digits): the quotient to `digits` significant
  # digits (0: as `/`).
  def div(other, digits = nil)
    if digits.nil?
      b = _operand(other)
      return _with_coerce(other, :div) if b.nil?
      raise ZeroDivisionError, "divided by 0" if b.zero?
      raise FloatDomainError, "Computation results in 'NaN' (Not a Number)" if nan? || b.nan?
      raise FloatDomainError, "Computation results in '#{infinite? == -1 ? '-' : ''}Infinity'" if infinite?
      return 0 if b.infinite?
      return _floor_quotient(b)
    end
    _check_prec(digits)
    _binary(other, :div) { |b| _quo(b, digits.zero? ? nil : digits) }
  end

  def %(other)
    b = _operand(other)
    return _with_coerce(other, :%) if b.nil?
    _divmod(b)[1]
  end
  alias modulo %

  def divmod(other)
    b = _operand(other)
    return _with_coerce(other, :divmod) if b.nil?
    _divmod(b)
  end

  def remainder(other)
    b = _operand(other)
    return _with_coerce(other, :remainder) if b.nil?
    return BigDecimal._computed(:nan) if nan? || b.nan? || infinite? || b.zero?
    return self if b.infinite?
    q = _exact_quotient_truncated(b)
    _add(b._mult(BigDecimal._make(q < 0 ? -1 : 1, q.abs, 0), 0), -1, 0)
  end

  def -@
    case @kind
    when :nan then self
    when :inf then BigDecimal._raw_special(:inf, -@sign)
    else @mant.zero? ? BigDecimal._zero(-@sign) : BigDecimal._make(-@sign, @mant, @exp)
    end
  end

  def +@ = self

  def abs
    return self if nan? || @sign > 0
    -self
  end

  def sqrt(n = 0)
    raise ArgumentError, "negative precision" if n.is_a?(Integer) && n < 0
    n = n.to_i
    return BigDecimal._computed(:nan) if nan?
    raise FloatDomainError, "sqrt of negative value" if @sign < 0 && !zero?
    return self if infinite? || zero?
    n = [precision, DOUBLE_FIG].max + DOUBLE_FIG if n.zero?
    _sqrt(n)
  end

  def frac
    return self unless finite?
    return BigDecimal._zero(@sign) if @exp >= 0
    cut = 10**-@exp
    BigDecimal._make(@sign, @mant % cut, @exp)
  end

  def fix
    return self unless finite?
    return self if @exp >= 0
    BigDecimal._make(@sign, @mant / 10**-@exp, 0)
  end

  # round: an Integer. round(n): a BigDecimal when n >= 1, an Integer when n < 1. round(n, mode) and
  # round(half: ...): a BigDecimal.
  def round(*args, half: (no_half = true; nil))
    raise ArgumentError, "wrong number of arguments (given #{args.size}, expected 0..2)" if args.size > 2
    mode =
      if args.size == 2
        BigDecimal._check_rounding_mode(args[1])
      elsif !no_half
        BigDecimal._half_mode(half)
      else
        BigDecimal._rounding_mode
      end
    if args.empty?
      _check_finite_for_integer if no_half
      r = _round_places(0, mode)
      return no_half ? r.to_i : r
    end
    n = args[0]
    raise TypeError, "no implicit conversion of #{n.class} into Integer" unless n.is_a?(Integer)
    return self unless finite?
    r = _round_places(n, mode)
    args.size == 1 && no_half && n < 1 ? r.to_i : r
  end

  def floor(n = nil) = _rounded(n, ROUND_FLOOR)
  def ceil(n = nil) = _rounded(n, ROUND_CEILING)
  def truncate(n = nil) = _rounded(n, ROUND_DOWN)

  def **(other)
    case other
    when BigDecimal, Integer, Float, Rational then power(other)
    when nil then raise TypeError, "wrong argument type NilClass"
    else
      x, y = other.coerce(self)
      x**y
    end
  end

  def power(y, prec = nil)
    unless prec.nil?
      raise ArgumentError, "precision must be an Integer" unless prec.is_a?(Integer)
      raise ArgumentError, "Zero or negative precision for power" if prec <= 0
    end
    y = BigDecimal._coerce_operand(y, self) if y.is_a?(Integer) || y.is_a?(Float) || y.is_a?(Rational)
    raise TypeError, "wrong argument type #{y.class}" unless y.is_a?(BigDecimal)
    return BigDecimal._computed(:nan) if nan? || y.nan?
    if y.infinite?
      if self < 0
        return BigDecimal._zero(1) if (self < -1 && y < 0) || (self > -1 && y > 0)
        raise Math::DomainError, "Result undefined for negative base raised to infinite power"
      end
      return BigDecimal._make(1, 1, 0) if self == 1
      return (self < 1) == (y > 0) ? BigDecimal._zero(1) : BigDecimal._computed(:inf, 1)
    end
    integral = y.frac.zero?
    if zero?
      return BigDecimal._make(1, 1, 0) if y.zero?
      return BigDecimal._zero(1) if y > 0
      odd = integral && y.to_i.odd?
      return BigDecimal._computed(:inf, odd && @sign < 0 ? -1 : 1)
    end
    if infinite?
      return BigDecimal._make(1, 1, 0) if y.zero?
      return BigDecimal._zero(1) if y < 0
      odd = integral && y.to_i.odd?
      return BigDecimal._computed(:inf, odd && @sign < 0 ? -1 : 1)
    end
    if @sign < 0
      raise Math::DomainError, "Computation results in complex number" unless integral
      r = (-self).power(y, prec)
      return y.to_i.even? ? r : -r
    end
    return BigDecimal._make(1, 1, 0) if self == 1
    prec ||= BigDecimal.limit.nonzero?
    if integral && prec.nil?
      k = y.to_i
      r = BigDecimal._make(1, @mant**k.abs, @exp * k.abs)
      return k < 0 ? BigDecimal._make(1, 1, 0) / r : r
    end
    prec ||= [n_significant_digits, y.n_significant_digits, DOUBLE_FIG].max + DOUBLE_FIG
    if integral
      k = y.to_i
      r = BigDecimal._make(1, @mant**k.abs, @exp * k.abs)
      return k < 0 ? BigDecimal._make(1, 1, 0).div(r, prec) : r._round_sig(prec, BigDecimal._rounding_mode)
    end
    guard = prec + DOUBLE_FIG + [y.exponent, 0].max
    BigMath.exp(BigMath.log(self, guard).mult(y, guard), guard)._round_sig(prec, BigDecimal._rounding_mode)
  end

  # --- comparison ----------------------------------------------------------------------------------------------------

  def <=>(other)
    b =
      case other
      when BigDecimal then other
      when Integer, Float, Rational
        return nil if other.is_a?(Float) && other.nan?
        return _cmp_rational(other) if other.is_a?(Rational) && finite?
        BigDecimal._coerce_operand(other, self)
      else
        return nil unless other.respond_to?(:coerce)
        begin
          a, c = other.coerce(self)
          return a <=> c
        rescue StandardError
          return nil
        end
      end
    _cmp(b)
  end

  def ==(other)
    return false if nan?
    case other
    when BigDecimal, Integer, Float, Rational
      c = (self <=> other)
      !c.nil? && c.zero?
    else
      other == self
    end
  end
  alias === ==
  alias eql? ==

  def <(other) = _relation(other, :<) { |c| c < 0 }
  def <=(other) = _relation(other, :<=) { |c| c <= 0 }
  def >(other) = _relation(other, :>) { |c| c > 0 }
  def >=(other) = _relation(other, :>=) { |c| c >= 0 }

  # --- internals -----------------------------------------------------------------------------------------------------

  # Rounds to `n` significant digits (n <= 0: unchanged).
  def _round_sig(n, mode)
    return self unless @kind == :finite && n > 0 && @digits > n
    _round_drop(@digits - n, mode)
  end

  protected

  def _round_drop(drop, mode)
    return self if drop <= 0
    if drop > @digits
      # Every digit goes and what goes is under a tenth of the unit: no half mode rounds up, and 10**drop (which a
      # round(-10**12) would ask for) is never computed.
      up = mode == ROUND_UP || (mode == ROUND_CEILING && @sign > 0) || (mode == ROUND_FLOOR && @sign < 0)
      return up ? BigDecimal._make(@sign, 1, @exp + drop) : BigDecimal._zero(@sign)
    end
    unit = 10**drop
    q, r = @mant.divmod(unit)
    return BigDecimal._make(@sign, q, @exp + drop) if r.zero?
    up =
      case mode
      when ROUND_UP then true
      when ROUND_DOWN then false
      when ROUND_HALF_UP then 2 * r >= unit
      when ROUND_HALF_DOWN then 2 * r > unit
      when ROUND_HALF_EVEN then 2 * r > unit || (2 * r == unit && q.odd?)
      when ROUND_CEILING then @sign > 0
      when ROUND_FLOOR then @sign < 0
      end
    q += 1 if up
    BigDecimal._make(@sign, q, @exp + drop)
  end

  # Rounds to `n` digits after the decimal point (negative: before it).
  def _round_places(n, mode)
    return self unless @kind == :finite
    return self if @mant.zero? || @exp >= -n
    _round_drop(-n - @exp, mode)
  end

  def _add(b, bsign, prec)
    if nan? || b.nan?
      return BigDecimal._computed(:nan)
    end
    bs = b.sgn_raw * bsign
    if infinite? || b.infinite?
      return BigDecimal._computed(:nan) if infinite? && b.infinite? && @sign != bs
      return infinite? ? BigDecimal._computed(:inf, @sign) : BigDecimal._computed(:inf, bs)
    end
    if b.zero?
      return zero? ? BigDecimal._zero(@sign < 0 && bs < 0 ? -1 : 1) : _round_sig(prec, BigDecimal._rounding_mode)
    end
    return (bsign < 0 ? -b : b)._round_sig(prec, BigDecimal._rounding_mode) if zero?
    e = [@exp, b.exp].min
    sum = @sign * @mant * 10**(@exp - e) + bs * b.mant * 10**(b.exp - e)
    return BigDecimal._zero(1) if sum.zero?
    BigDecimal._make(sum < 0 ? -1 : 1, sum.abs, e)._round_sig(prec, BigDecimal._rounding_mode)
  end

  def _mult(b, prec)
    return BigDecimal._computed(:nan) if nan? || b.nan?
    s = @sign * b.sgn_raw
    if infinite? || b.infinite?
      return BigDecimal._computed(:nan) if zero? || b.zero?
      return BigDecimal._computed(:inf, s)
    end
    return BigDecimal._zero(s) if zero? || b.zero?
    BigDecimal._make(s, @mant * b.mant, @exp + b.exp)._round_sig(prec, BigDecimal._rounding_mode)
  end

  # a / b to `prec` significant digits; nil: bigdecimal 4's default, the larger operand precision plus 16 digits,
  # and at least 32 (then BigDecimal.limit, if set and smaller).
  def _quo(b, prec)
    return BigDecimal._computed(:nan) if nan? || b.nan?
    s = @sign * b.sgn_raw
    if infinite?
      return BigDecimal._computed(:nan) if b.infinite?
      return BigDecimal._computed(:inf, s)
    end
    return BigDecimal._zero(s) if b.infinite?
    if b.zero?
      return BigDecimal._computed(:nan) if zero?
      raise FloatDomainError, "Divide by zero" if BigDecimal._exception_mode & EXCEPTION_ZERODIVIDE != 0
      return BigDecimal._computed(:inf, s)
    end
    return BigDecimal._zero(s) if zero?
    if prec.nil?
      prec = [[precision, b.precision].max + DOUBLE_FIG, 2 * DOUBLE_FIG].max
      limit = BigDecimal.limit
      prec = limit if limit > 0 && limit < prec
    end
    BigDecimal._divide_to(s, @mant, @exp, b.mant, b.exp, prec, BigDecimal._rounding_mode)
  end

  def _floor_quotient(b)
    e = [@exp, b.exp].min
    (@sign * @mant * 10**(@exp - e)).div(b.sgn_raw * b.mant * 10**(b.exp - e))
  end

  def _exact_quotient_truncated(b)
    e = [@exp, b.exp].min
    num = @mant * 10**(@exp - e)
    den = b.mant * 10**(b.exp - e)
    (num / den) * @sign * b.sgn_raw
  end

  # [floor(a / b) as an Integer, a - b * floor(a / b)]: bigdecimal 4's divmod.
  def _divmod(b)
    raise ZeroDivisionError, "divided by 0" if b.zero?
    if nan? || b.nan? || infinite?
      nan = BigDecimal._computed(:nan)
      return [nan, nan]
    end
    if b.infinite?
      return [0, self] if zero? || (@sign == b.sgn_raw)
      return [-1, b]
    end
    q = _floor_quotient(b)
    qd = BigDecimal._make(q < 0 ? -1 : 1, q.abs, 0)
    [q, _add(b._mult(qd, 0), -1, 0)]
  end

  def _sqrt(n)
    # Scale so that the integer root has at least n + 1 digits and the exponent is even.
    shift = 2 * (n + 1) - @digits
    shift = 0 if shift < 0
    shift += 1 if (@exp - shift).odd?
    m = @mant * 10**shift
    r = Integer.sqrt(m)
    e = (@exp - shift) / 2
    unless r * r == m
      r = r * 10 + 1
      e -= 1
    end
    BigDecimal._make(1, r, e)._round_sig(n, BigDecimal._rounding_mode)
  end

  def _cmp(b)
    return nil if nan? || b.nan?
    if infinite? || b.infinite?
      a = infinite? ? @sign * 2 : 0
      c = b.infinite? ? b.sgn_raw * 2 : 0
      return a <=> c if a != c
      return 0
    end
    as = zero? ? 0 : @sign
    bs = b.zero? ? 0 : b.sgn_raw
    return as <=> bs if as != bs
    return 0 if as.zero?
    ea = exponent
    eb = b.exponent
    return ea > eb ? as : -as if ea != eb
    e = [@exp, b.exp].min
    (@mant * 10**(@exp - e) <=> b.mant * 10**(b.exp - e)) * as
  end

  private

  def _cmp_rational(r)
    to_r <=> r
  end

  def _relation(other, op)
    c = self <=> other
    if c.nil?
      return false if nan? || (other.is_a?(BigDecimal) && other.nan?) || (other.is_a?(Float) && other.nan?)
      raise ArgumentError, "comparison of BigDecimal with #{other.nil? ? 'nil' : other.class} failed" unless
        other.respond_to?(:coerce)
      a, b = other.coerce(self)
      return a.__send__(op, b)
    end
    yield c
  end

  def _operand(x)
    case x
    when BigDecimal, Integer, Float, Rational then BigDecimal._coerce_operand(x, self)
    else nil
    end
  end

  def _with_coerce(other, op, *args)
    raise TypeError, "#{other.nil? ? 'nil' : other.class} can't be coerced into BigDecimal" unless
      other.respond_to?(:coerce)
    a, b = other.coerce(self)
    a.__send__(op, b, *args)
  end

  def _binary(other, op)
    b = _operand(other)
    return _with_coerce(other, op) if b.nil?
    yield b
  end

  def _limit_prec(prec)
    limit = BigDecimal.limit
    return prec if limit.zero?
    prec.zero? || prec > limit ? limit : prec
  end

  def _check_prec(prec)
    raise TypeError, "no implicit conversion of #{prec.class} into Integer" unless prec.is_a?(Integer)
    raise ArgumentError, "negative precision" if prec < 0
  end

  def _rounded(n, mode)
    if n.nil?
      _check_finite_for_integer
      return _round_places(0, mode).to_i
    end
    raise TypeError, "no implicit conversion of #{n.class} into Integer" unless n.is_a?(Integer)
    return self unless finite?
    _round_places(n, mode)
  end

  def _check_finite_for_integer
    raise FloatDomainError, "Computation results in 'NaN' (Not a Number)" if nan?
    raise FloatDomainError, "Computation results in '#{@sign < 0 ? '-' : ''}Infinity'" if infinite?
  end

  public

  INFINITY = _raw_special(:inf, 1)
  NAN = _raw_special(:nan, 1)
end

module Kernel
  private

  # BigDecimal(value [, digits], exception: true)
  def BigDecimal(value, *rest, exception: true)
    raise ArgumentError, "wrong number of arguments (given #{rest.size + 1}, expected 1..2)" if rest.size > 1
    digits = rest.empty? ? nil : rest[0]
    begin
      unless digits.nil?
        raise TypeError, "no implicit conversion of #{digits.class} into Integer" unless digits.is_a?(Integer)
        raise ArgumentError, "negative precision" if digits < 0
      end
      case value
      when BigDecimal
        value
      when Integer # exact, whatever the digits (as the C library)
        BigDecimal._make(value < 0 ? -1 : 1, value.abs, 0)
      when Float
        raise ArgumentError, "can't omit precision for a Float." if digits.nil?
        raise ArgumentError, "precision too large." if digits > Float::DIG + 1
        BigDecimal._from_float(value, digits)
      when Rational
        raise ArgumentError, "can't omit precision for a Rational." if digits.nil? || digits.zero?
        BigDecimal._from_rational(value, digits)
      when Complex
        raise ArgumentError, "Unable to make a BigDecimal from non-zero imaginary number" unless value.imaginary.zero?
        BigDecimal(value.real, *rest)
      when String
        BigDecimal._parse(value) or raise ArgumentError, "invalid value for BigDecimal(): #{value.inspect}"
      when nil
        raise TypeError, "can't convert nil into BigDecimal"
      else
        str = value.respond_to?(:to_str) ? value.to_str : nil
        raise TypeError, "can't convert #{value.class} into BigDecimal" unless str.is_a?(String)
        BigDecimal._parse(str) or raise ArgumentError, "invalid value for BigDecimal(): #{str.inspect}"
      end
    rescue ArgumentError, TypeError, FloatDomainError
      raise if exception
      nil
    end
  end
  module_function :BigDecimal
end

# BigMath.exp and BigMath.log come with `require "bigdecimal"`, as in bigdecimal 4; the rest is in bigdecimal/math.
# They compute in fixed point (an Integer scaled by 10**p, p = the precision asked for plus guard digits) and round
# the result to the precision asked for.
module BigMath
  class << self
    def _validate_prec(prec, name)
      raise ArgumentError, "precision must be an Integer" unless prec.is_a?(Integer)
      raise ArgumentError, "Zero or negative precision for #{name}" if prec <= 0
    end

    def _coerce(x, name, complex_domain_error = false)
      case x
      when BigDecimal then x
      when Integer, Float, Rational then x.is_a?(Float) ? BigDecimal._from_float(x, 0) : BigDecimal(x, 0 + (x.is_a?(Rational) ? 2 * BigDecimal.double_fig : 0))
      else
        raise Math::DomainError, "Complex argument for BigMath.#{name}" if complex_domain_error && x.is_a?(Complex)
        raise ArgumentError, "#{x.inspect} can't be coerced into BigDecimal"
      end
    end

    # x (a finite BigDecimal or a Rational) as an Integer scaled by 10**p, rounded to nearest.
    def _fixed(x, p)
      (x.is_a?(Rational) ? x : x.to_r).*(10**p).round
    end

    # An Integer scaled by 10**p as a BigDecimal to `prec` significant digits.
    def _from_fixed(v, p, prec)
      BigDecimal._make(v < 0 ? -1 : 1, v.abs, -p)._round_sig(prec, BigDecimal._rounding_mode)
    end

    # a / b rounded toward zero (Integer#/ floors, and a negative series term would never reach zero).
    def _tdiv(a, b) = a.negative? ? -(-a / b) : a / b

    # The sum over k >= 0 of t_k / (2k + 1), with t_0 = first and t_(k+1) = t_k * mul / div (toward zero), up to the
    # first zero term: atanh, atan and arctan(1/n) in fixed point.
    def _odd_series(first, mul, div)
      sum = first
      power = first
      k = 1
      loop do
        power = _tdiv(power * mul, div)
        break if power.zero?
        sum += _tdiv(power, 2 * k + 1)
        k += 1
      end
      sum
    end

    # atanh(y) for a fixed-point y (|y| well under 1), at scale 10**p.
    def _atanh_fixed(y, p)
      one = 10**p
      _odd_series(y, y * y / one, one)
    end

    def _ln2_fixed(p) = 2 * _atanh_fixed(10**p / 3, p)
    def _ln10_fixed(p) = 3 * _ln2_fixed(p) + 2 * _atanh_fixed(10**p / 9, p)

    def exp(x, prec)
      _validate_prec(prec, :exp)
      x = _coerce(x, :exp)
      return BigDecimal::NAN if x.nan?
      return x.positive? ? BigDecimal::INFINITY : BigDecimal(0) if x.infinite?
      return BigDecimal(1) if x.zero?
      return BigDecimal(1).div(exp(-x, prec + 2), prec) if x.negative?
      # exp(x) = exp(x / 2**k) ** (2**k), with x / 2**k <= 1/2 so the series converges fast.
      r = x.to_r
      k = 0
      while r > Rational(1, 2)
        r /= 2
        k += 1
      end
      p = prec + 10 + k / 2
      one = 10**p
      xr = _fixed(r, p)
      sum = one
      term = one
      i = 1
      loop do
        term = term * xr / (one * i)
        break if term.zero?
        sum += term
        i += 1
      end
      y = BigDecimal._make(1, sum, -p)
      k.times { y = y.mult(y, p) }
      y._round_sig(prec, BigDecimal._rounding_mode)
    end

    def log(x, prec)
      _validate_prec(prec, :log)
      x = _coerce(x, :log, true)
      return BigDecimal::NAN if x.nan?
      raise Math::DomainError, "Zero or negative argument for log" if x <= 0
      return BigDecimal::INFINITY if x.infinite?
      return BigDecimal(0) if x == 1
      # x = f * 2**-j * 10**k with f in [0.7, 1.4): log x = 2 atanh((f - 1) / (f + 1)) - j log 2 + k log 10.
      k = x.exponent
      f = x.to_r / Rational(10)**k
      j = 0
      while f < Rational(7, 10)
        f *= 2
        j += 1
      end
      near_one = (x - 1).exponent
      p = prec + 10 + k.abs.to_s.length + (near_one < 0 ? -near_one : 0)
      v = 2 * _atanh_fixed(_fixed((f - 1) / (f + 1), p), p)
      v -= j * _ln2_fixed(p) if j > 0
      v += k * _ln10_fixed(p) unless k.zero?
      _from_fixed(v, p, prec)
    end
  end
end
