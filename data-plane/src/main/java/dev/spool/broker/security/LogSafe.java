package dev.spool.broker.security;

/**
 * What a client sent (a user name, a mechanism name), made fit for a log line: at most {@link
 * #MAX_CHARS} characters (then "...(N chars)"), control characters, and the quote, written as
 * {@code \\uXXXX} escapes, in single quotes. A newline or an ANSI escape in a name therefore cannot
 * forge or garble log lines, and a megabyte of name costs one short line.
 */
public final class LogSafe {
  private LogSafe() {}

  /** Characters of a client's string a log line keeps. */
  public static final int MAX_CHARS = 64;

  /** {@code s} quoted, truncated and with control characters escaped; {@code null} as is. */
  public static String quote(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder(Math.min(s.length(), MAX_CHARS) + 16).append('\'');
    int n = Math.min(s.length(), MAX_CHARS);
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (Character.isISOControl(c)
          || c == '\''
          || c == '\\'
          || Character.getType(c) == Character.FORMAT) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    b.append('\'');
    if (s.length() > MAX_CHARS) {
      b.append("...(").append(s.length()).append(" chars)");
    }
    return b.toString();
  }
}
