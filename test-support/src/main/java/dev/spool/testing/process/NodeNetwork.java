package dev.spool.testing.process;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The network a {@link ProcessCluster} runs its nodes in: which addresses each node binds and
 * advertises, and what its command line starts with to run inside that network. {@link
 * LoopbackNetwork} (every node on 127.0.0.1) is the default; the chaos suite plugs in network
 * namespaces and fault proxies behind this interface.
 *
 * <p>The cluster owns the network it is given: it calls {@link #layout} once before any node starts
 * and {@link #close} when it closes (also from its JVM shutdown hook, and when the cluster fails to
 * start). Called from the thread that builds or closes the cluster, and from the shutdown hook.
 */
public interface NodeNetwork extends AutoCloseable {
  /** Chooses the addresses of {@code nodes} (and sets up whatever they need). */
  Map<Integer, NodeAddresses> layout(List<Integer> nodes) throws IOException;

  /** Words put before {@code java} on the node's command line (e.g. {@code ip netns exec ns}). */
  default List<String> launchPrefix(int node) {
    return List.of();
  }

  /** What a reader of a run must know about this network (e.g. a mode that was not available). */
  default List<String> notes() {
    return List.of();
  }

  /** Removes what {@link #layout} set up; idempotent. */
  @Override
  void close();
}
