# frozen_string_literal: true
#
# to_d for the numeric classes and String, BigDecimal#to_digits (engines/ruby/README.md, "BigDecimal").
require "bigdecimal"

class Integer < Numeric
  def to_d = BigDecimal(self)
end

class Float < Numeric
  def to_d(precision = 0) = BigDecimal(self, precision)
end

class String
  def to_d = BigDecimal.interpret_loosely(self)
end

class BigDecimal < Numeric
  def to_digits
    return to_s unless finite?
    to_s("F")
  end

  def to_d = self
end

class Rational < Numeric
  def to_d(precision)
    BigDecimal(self, precision)
  end
end

class Complex < Numeric
  def to_d(*args)
    BigDecimal(self) unless imag.zero? # raises the same error as BigDecimal()
    args.empty? ? BigDecimal(real, (real.is_a?(Rational) ? 2 * BigDecimal.double_fig : 0)) : BigDecimal(real, *args)
  end
end

class NilClass
  def to_d = BigDecimal(0)
end
