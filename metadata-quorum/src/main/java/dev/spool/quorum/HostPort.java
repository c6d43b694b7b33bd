package dev.spool.quorum;

/** A host and port, as written {@code host:port}. */
public record HostPort(String host, int port) {
  public HostPort {
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("empty host");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
  }

  /** Parses {@code host:port} (IPv6 hosts in brackets: {@code [::1]:9093}). */
  public static HostPort parse(String s) {
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      throw new IllegalArgumentException("not host:port: '" + s + "'");
    }
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      return new HostPort(host, Integer.parseInt(s.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad port in '" + s + "'");
    }
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
