package dev.spool.common;

/**
 * A host and port, as written {@code host:port}; IPv6 literals in brackets ({@code [::1]:9093}).
 * The one parser of addresses in Spool: client bootstrap lists, listeners and quorum voters all
 * read theirs with {@link #parse}. Port 0 parses (a listener binding an ephemeral port); callers
 * that connect reject it. Immutable; any thread.
 */
public record HostPort(String host, int port) {
  public HostPort {
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("empty host");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
  }

  /**
   * Parses {@code host:port}; throws {@link IllegalArgumentException} whose message quotes {@code
   * s} and says what is wrong with it.
   */
  public static HostPort parse(String s) {
    String problem = problem(s);
    if (problem != null) {
      throw new IllegalArgumentException("'" + s + "' " + problem);
    }
    int colon = s.lastIndexOf(':');
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return new HostPort(host, Integer.parseInt(s.substring(colon + 1)));
  }

  /**
   * Why {@code s} is not a {@code host:port}, as a phrase to follow the quoted value ("is not
   * host:port"), or {@code null} when {@link #parse} accepts it. Config validators use this.
   */
  public static String problem(String s) {
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      return "is not host:port";
    }
    String host = s.substring(0, colon);
    boolean bracketed = host.startsWith("[") && host.endsWith("]");
    if (bracketed ? host.length() == 2 : host.indexOf(':') >= 0) {
      // Without brackets "fe80::1:9092" could mean port 9092 or an address ending in 9092.
      return bracketed ? "has an empty host" : "is an IPv6 address without brackets ([addr]:port)";
    }
    int port;
    try {
      port = Integer.parseInt(s.substring(colon + 1));
    } catch (NumberFormatException e) {
      return "has a port that is not a number";
    }
    return port >= 0 && port <= 65535 ? null : "has a port outside 0..65535";
  }

  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
