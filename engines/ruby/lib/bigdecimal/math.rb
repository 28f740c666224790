# frozen_string_literal: true
#
# BigMath for the sandbox's Ruby (engines/ruby/README.md, "BigDecimal"): sqrt, sin, cos, tan, atan, PI and E to a
# given number of significant digits, alongside exp and log from bigdecimal.rb. Fixed-point Integer arithmetic with
# guard digits, rounded once at the end.
require "bigdecimal"

module BigMath
  module_function

  def sqrt(x, prec)
    BigMath._validate_prec(prec, :sqrt)
    x = BigMath._coerce(x, :sqrt, true)
    x.sqrt(prec)
  end

  def PI(prec)
    BigMath._validate_prec(prec, :PI)
    p = prec + 10
    BigMath._from_fixed(BigMath._pi_fixed(p), p, prec)
  end

  def E(prec)
    BigMath._validate_prec(prec, :E)
    BigMath.exp(1, prec)
  end

  def sin(x, prec) = BigMath._trig(x, prec, :sin)
  def cos(x, prec) = BigMath._trig(x, prec, :cos)

  def tan(x, prec)
    BigMath._validate_prec(prec, :tan)
    s = BigMath._trig(x, prec + 10, :sin)
    return s unless s.finite?
    s.div(BigMath._trig(x, prec + 10, :cos), prec)
  end

  def atan(x, prec)
    BigMath._validate_prec(prec, :atan)
    x = BigMath._coerce(x, :atan, true)
    return BigDecimal::NAN if x.nan?
    p = prec + 10
    if x.infinite?
      return BigMath._from_fixed(x.sign.positive? ? BigMath._pi_fixed(p) / 2 : -BigMath._pi_fixed(p) / 2, p, prec)
    end
    return BigDecimal(0) if x.zero?
    p += [-x.exponent, 0].max
    one = 10**p
    r = x.to_r
    neg = r < 0
    r = -r if neg
    invert = r > 1
    r = 1 / r if invert
    # atan r = 2 atan(r / (1 + sqrt(1 + r**2))), three times: the series then gains two digits a term.
    v = BigMath._fixed(r, p)
    3.times { v = v * one / (one + Integer.sqrt(one * one + v * v)) }
    sum = 8 * BigMath._odd_series(v, -(v * v / one), one)
    sum = BigMath._pi_fixed(p) / 2 - sum if invert
    sum = -sum if neg
    BigMath._from_fixed(sum, p, prec)
  end

  class << self
    # pi at scale 10**p: 16 atan(1/5) - 4 atan(1/239).
    def _pi_fixed(p)
      g = p + 5
      v = 16 * _atan_inv_fixed(5, g) - 4 * _atan_inv_fixed(239, g)
      v / 10**5
    end

    def _atan_inv_fixed(n, p) = _odd_series(10**p / n, -1, n * n)

    def _trig(x, prec, which)
      _validate_prec(prec, which)
      x = _coerce(x, which, true)
      return BigDecimal::NAN if x.nan? || x.infinite?
      return which == :sin ? BigDecimal(0) : BigDecimal(1) if x.zero?
      p = prec + 10 + [x.exponent, 0].max
      one = 10**p
      v = _fixed(x, p)
      two_pi = 2 * _pi_fixed(p)
      v -= two_pi * ((v + two_pi / 2).div(two_pi)) # into [-pi, pi)
      v2 = v * v / one
      if which == :sin
        term = v
        sum = v
        k = 1
      else
        term = one
        sum = one
        k = 0
      end
      loop do
        term = _tdiv(-term * v2, one * (k + 1) * (k + 2))
        break if term.zero?
        sum += term
        k += 2
      end
      _from_fixed(sum, p, prec)
    end
  end
end
