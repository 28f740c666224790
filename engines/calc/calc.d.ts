/** A guest-level calc error (SyntaxError, ReferenceError). */
export declare class CalcError extends Error {
  constructor(name: string, message: string);
}
/** Evaluates a calc expression; names read numeric environment variables. Throws CalcError. */
export declare function evaluate(source: string, env?: Record<string, string>): number;
