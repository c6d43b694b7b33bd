package dev.spool.network;

import dev.spool.common.HostPort;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A broker the client can connect to. Brokers named by cluster metadata have their node id (≥ 0);
 * addresses from {@code bootstrap.servers} get ids -1, -2, … until metadata names the brokers, as
 * in Kafka. Connections are keyed by id.
 */
public record Node(int id, String host, int port) {
  public Node {
    Objects.requireNonNull(host, "host");
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
  }

  public boolean isBootstrap() {
    return id < 0;
  }

  /** {@code host:port}, with brackets around IPv6 literals. */
  public String address() {
    return new HostPort(host, port).toString();
  }

  @Override
  public String toString() {
    return (isBootstrap() ? "bootstrap " : "node ") + id + " (" + address() + ")";
  }

  /**
   * Parses a comma-separated {@code host:port} list ({@code [v6]:port} for IPv6 literals) into
   * bootstrap nodes numbered -1, -2, … Throws {@link IllegalArgumentException} naming the bad
   * entry.
   */
  public static List<Node> parseBootstrap(String servers) {
    List<Node> nodes = new ArrayList<>();
    for (String raw : servers.split(",")) {
      String entry = raw.trim();
      if (entry.isEmpty()) {
        continue;
      }
      nodes.add(parseAddress(-(nodes.size() + 1), entry));
    }
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("no bootstrap address in '" + servers + "'");
    }
    return List.copyOf(nodes);
  }

  static Node parseAddress(int id, String entry) {
    HostPort address = HostPort.parse(entry);
    if (address.port() == 0) {
      throw new IllegalArgumentException(
          "'" + entry + "' has port 0, which cannot be connected to");
    }
    return new Node(id, address.host(), address.port());
  }
}
