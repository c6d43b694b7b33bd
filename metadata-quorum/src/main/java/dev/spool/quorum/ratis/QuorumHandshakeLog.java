package dev.spool.quorum.ratis;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.ratis.thirdparty.io.grpc.Attributes;
import org.apache.ratis.thirdparty.io.grpc.ServerTransportFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WARN line for connections the quorum's TLS port refused, rate-limited: gRPC tells a transport
 * filter of every connection that ends, with null attributes when it never became ready, i.e. its
 * mutual TLS handshake did not complete (no certificate, one from a CA not in the truststore, a
 * plaintext client, a port scanner). At most one line per {@link #INTERVAL_MS}; the next line says
 * how many were held back. gRPC does not say who it was (the handshake failed before the transport
 * had a peer address to report).
 *
 * <p>Threads: gRPC's event loops; lock-free.
 */
final class QuorumHandshakeLog extends ServerTransportFilter {
  private static final Logger log = LoggerFactory.getLogger(QuorumHandshakeLog.class);

  static final long INTERVAL_MS = 5_000;

  private final int nodeId;
  private final LongSupplier nanoClock;
  private final AtomicLong lastLineNs;
  private final AtomicLong heldBack = new AtomicLong();

  QuorumHandshakeLog(int nodeId, LongSupplier nanoClock) {
    this.nodeId = nodeId;
    this.nanoClock = nanoClock;
    this.lastLineNs =
        new AtomicLong(nanoClock.getAsLong() - TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS));
  }

  @Override
  public void transportTerminated(Attributes attributes) {
    if (attributes != null) {
      return; // a connection that completed its handshake has ended
    }
    long now = nanoClock.getAsLong();
    long last = lastLineNs.get();
    if (now - last >= TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS)
        && lastLineNs.compareAndSet(last, now)) {
      long held = heldBack.getAndSet(0);
      log.warn(
          "[node={}] the quorum port refused a connection that did not complete a mutual TLS"
              + " handshake (no certificate, one not signed by a CA of ssl.truststore.*, or not"
              + " TLS){}",
          nodeId,
          held > 0 ? "; " + held + " more held back in the last " + INTERVAL_MS + " ms" : "");
    } else {
      heldBack.incrementAndGet();
    }
  }
}
