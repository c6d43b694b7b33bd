package dev.spool.chaos.checker;

/**
 * One anomaly, one checker (docs/conventions.md#pure-cores; Jepsen's kafka checker reports each
 * anomaly under its own name). A checker is a pure function of the history: no I/O, no clock, no
 * randomness, the same answer every time.
 */
public interface Checker {
  /** Jepsen's name for the anomaly, e.g. {@code lost-write}; also the key in the verdict. */
  String name();

  CheckResult check(Analysis analysis);
}
