package dev.spool.testing.process;

/** The POSIX signals a process cluster sends its nodes (by PID, by name). */
public enum Signal {
  /** Crash without any chance to clean up. */
  KILL,
  /** Freeze the process: no threads run, sockets stay open. */
  STOP,
  /** Resume a stopped process. */
  CONT,
  /** Ask for a clean shutdown. */
  TERM
}
