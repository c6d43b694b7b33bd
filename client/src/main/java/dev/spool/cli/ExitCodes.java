package dev.spool.cli;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.config.ConfigException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The exit codes every {@code spool} command uses, and how failures map onto them. */
public final class ExitCodes {
  public static final int OK = 0;

  /** An operation failed: e.g. some produced lines failed, the topic exists, a bad record. */
  public static final int FAILED = 1;

  /**
   * Wrong usage: unknown option, bad value, unknown config key (picocli's own code for usage
   * errors).
   */
  public static final int USAGE = 2;

  /** The cluster could not be reached, or an operation timed out. */
  public static final int UNREACHABLE = 3;

  private ExitCodes() {}

  /** The list shown under "Exit codes:" in every command's help. */
  public static Map<String, String> helpList() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(" 0", "success");
    m.put(" 1", "an operation failed (e.g. some records failed, topic exists)");
    m.put(" 2", "usage error (bad option, value or config key)");
    m.put(" 3", "cannot reach the cluster, or timed out");
    return m;
  }

  /** Unwraps future wrappers to the exception that says what went wrong. */
  public static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }

  /** The exit code for a failure. */
  public static int of(Throwable t) {
    Throwable c = rootCause(t);
    if (c instanceof SpoolException se) {
      return isConnectivity(se.errorCode()) ? UNREACHABLE : FAILED;
    }
    if (c instanceof ConfigException || c instanceof IllegalArgumentException) {
      return USAGE;
    }
    return FAILED;
  }

  /** True for errors that mean "could not reach the cluster in time" (exit 3). */
  public static boolean isConnectivity(ErrorCode code) {
    return code == ErrorCode.BROKER_NOT_AVAILABLE || code == ErrorCode.REQUEST_TIMED_OUT;
  }

  /** One line for stderr: the error code name and message. */
  public static String describe(Throwable t) {
    Throwable c = rootCause(t);
    // Usage mistakes (IllegalArgumentException from argument checks) read as plain sentences;
    // anything unexpected keeps its exception type so it can be reported.
    String m =
        c instanceof SpoolException
                || c instanceof ConfigException
                || c instanceof IllegalArgumentException
            ? c.getMessage()
            : c.getClass().getSimpleName() + ": " + c.getMessage();
    return "error: " + String.valueOf(m).replace('\n', ' ');
  }
}
