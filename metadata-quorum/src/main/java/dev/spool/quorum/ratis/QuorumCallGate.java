package dev.spool.quorum.ratis;

import dev.spool.quorum.QuorumAdmission;
import java.net.SocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.apache.ratis.thirdparty.io.grpc.Grpc;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a call on the quorum's port only when the {@link QuorumAdmission} admits the certificate
 * its connection presented: every gRPC service of the port (Raft votes and appends, controller
 * writes and reads, Ratis admin calls) passes here before Ratis sees the call. A refused call is
 * closed PERMISSION_DENIED with the reason, unanswered otherwise, and logged as one WARN line
 * naming the principal, its address and the method, at most one per {@link
 * RateLimitedLine#INTERVAL_MS} (the next says how many were held back).
 *
 * <p>Threads: gRPC's executor threads; lock-free.
 */
final class QuorumCallGate implements ServerInterceptor {
  private static final Logger log = LoggerFactory.getLogger(QuorumCallGate.class);

  private final int nodeId;
  private final QuorumAdmission admission;
  private final RateLimitedLine line;

  QuorumCallGate(int nodeId, QuorumAdmission admission, LongSupplier nanoClock) {
    this.nodeId = nodeId;
    this.admission = admission;
    this.line = new RateLimitedLine(nanoClock);
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
    String refusal = refusal(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
    if (refusal == null) {
      return next.startCall(call, headers);
    }
    logRefusal(
        refusal,
        call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR),
        call.getMethodDescriptor().getFullMethodName());
    call.close(
        Status.PERMISSION_DENIED.withDescription(
            "the metadata quorum serves only the cluster's own principals: " + refusal),
        new Metadata());
    return new ServerCall.Listener<>() {};
  }

  /** Null when the peer of {@code session} is admitted. */
  String refusal(SSLSession session) {
    if (session == null) {
      return "the connection has no TLS session";
    }
    Certificate[] chain;
    try {
      chain = session.getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      return "the peer presented no certificate";
    }
    if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
      return "the peer presented no X.509 certificate";
    }
    return admission.refusal(leaf.getSubjectX500Principal().getName());
  }

  private void logRefusal(String refusal, SocketAddress from, String method) {
    String heldBack = line.admit();
    if (heldBack != null) {
      log.warn(
          "[node={}] the quorum port refused {} from {}: {}{}",
          nodeId,
          method,
          from,
          refusal,
          heldBack);
    }
  }
}
