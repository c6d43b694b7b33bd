package dev.spool.chaos.fuzz;

/** What a node's log must not say after a fuzz campaign. */
public final class FuzzLogs {
  private FuzzLogs() {}

  /**
   * True for a line reporting a leaked Netty buffer, an answer a listener could not encode, or a
   * request that failed with an unexpected exception (bad input must be refused as such, never end
   * in UNKNOWN_SERVER_ERROR and a stack trace).
   */
  public static boolean alarming(String line) {
    return line.contains("LEAK:")
        || line.contains("cannot encode")
        || (line.contains(" ERROR ") && line.contains(" request ") && line.endsWith(" failed"));
  }
}
