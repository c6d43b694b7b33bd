package dev.spool.quorum.ratis;

import java.util.function.LongSupplier;
import org.apache.ratis.thirdparty.io.grpc.Attributes;
import org.apache.ratis.thirdparty.io.grpc.ServerTransportFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WARN line for connections the quorum's TLS port refused, rate-limited: gRPC tells a transport
 * filter of every connection that ends, with null attributes when it never became ready, i.e. its
 * mutual TLS handshake did not complete (no certificate, one from a CA not in the truststore, a
 * plaintext client, a port scanner). At most one line per {@link RateLimitedLine#INTERVAL_MS}; the
 * next line says how many were held back. gRPC does not say who it was (the handshake failed before
 * the transport had a peer address to report).
 *
 * <p>Threads: gRPC's event loops; lock-free.
 */
final class QuorumHandshakeLog extends ServerTransportFilter {
  private static final Logger log = LoggerFactory.getLogger(QuorumHandshakeLog.class);

  private final int nodeId;
  private final RateLimitedLine line;

  QuorumHandshakeLog(int nodeId, LongSupplier nanoClock) {
    this.nodeId = nodeId;
    this.line = new RateLimitedLine(nanoClock);
  }

  @Override
  public void transportTerminated(Attributes attributes) {
    if (attributes != null) {
      return; // a connection that completed its handshake has ended
    }
    String heldBack = line.admit();
    if (heldBack != null) {
      log.warn(
          "[node={}] the quorum port refused a connection that did not complete a mutual TLS"
              + " handshake (no certificate, one not signed by a CA of ssl.truststore.*, or not"
              + " TLS){}",
          nodeId,
          heldBack);
    }
  }
}
