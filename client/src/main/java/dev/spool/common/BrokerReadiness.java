package dev.spool.common;

import java.util.List;

/**
 * Whether a registered broker is ready, as the cluster's metadata shows it: the conditions of a
 * node's {@code /health/ready} that the metadata carries. A listed broker is registered (it
 * registers once its logs are recovered); the controller unfences it only once it has replayed the
 * metadata up to its registration, and fences it when its session lapses. {@code cluster status}
 * and a node's status page both say it by this rule.
 *
 * <p>Threads: any; stateless.
 */
public final class BrokerReadiness {
  private BrokerReadiness() {}

  /**
   * Why the broker is not ready ("" when it is); a broker whose data directory failed serves no
   * replica there and is not ready until it restarts on a healthy disk.
   */
  public static String notReadyReason(
      boolean fenced, boolean inControlledShutdown, List<String> offlineDirs) {
    if (fenced) {
      return "fenced";
    }
    if (!offlineDirs.isEmpty()) {
      return "data directory offline: " + String.join(", ", offlineDirs);
    }
    return inControlledShutdown ? "shutting down" : "";
  }
}
