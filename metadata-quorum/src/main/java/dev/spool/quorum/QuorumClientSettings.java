package dev.spool.quorum;

import dev.spool.common.HostPort;
import dev.spool.config.Config;
import java.util.Map;

/**
 * What a {@link QuorumClient} needs: the cluster id (Raft group id), the voters and the bounded
 * retry timing.
 *
 * @param requestTimeoutMs one attempt; then the client tries another controller
 * @param retryBackoffMs pause between attempts
 * @param totalTimeoutMs a call fails with QUORUM_UNAVAILABLE after this long
 * @param tls the quorum's mutual TLS material, or null for plaintext ({@link QuorumTls})
 */
public record QuorumClientSettings(
    String clusterId,
    Map<Integer, HostPort> voters,
    int requestTimeoutMs,
    int retryBackoffMs,
    int totalTimeoutMs,
    QuorumTls tls) {

  public QuorumClientSettings {
    voters = Map.copyOf(voters);
  }

  /** Plaintext settings (no TLS on the quorum). */
  public static QuorumClientSettings of(String clusterId, Config config) {
    return of(clusterId, config, null);
  }

  /** Settings with the quorum's TLS material, or null for plaintext. */
  public static QuorumClientSettings of(String clusterId, Config config, QuorumTls tls) {
    QuorumConfig.validate(config);
    return new QuorumClientSettings(
        clusterId,
        QuorumConfig.parseVoters(config.get(QuorumConfig.VOTERS)),
        config.get(QuorumConfig.CLIENT_REQUEST_TIMEOUT_MS),
        config.get(QuorumConfig.CLIENT_RETRY_BACKOFF_MS),
        config.get(QuorumConfig.CLIENT_TOTAL_TIMEOUT_MS),
        tls);
  }
}
