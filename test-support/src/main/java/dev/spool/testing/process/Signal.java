package dev.spool.testing.process;

/** The POSIX signals a process cluster sends its nodes (by PID), with their Linux numbers. */
public enum Signal {
  /** Crash without any chance to clean up. */
  KILL(9),
  /** Freeze the process: no threads run, sockets stay open. */
  STOP(19),
  /** Resume a stopped process. */
  CONT(18),
  /** Ask for a clean shutdown. */
  TERM(15);

  private final int number;

  Signal(int number) {
    this.number = number;
  }

  public int number() {
    return number;
  }
}
