package dev.spool.quorum;

import java.util.List;
import java.util.Objects;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;

/**
 * The key and trust material of the metadata quorum's gRPC transport when the node's {@code
 * listener.security.protocol.map} has {@code CONTROLLER:SSL}. The quorum's TLS is always mutual:
 * every Raft server, peer connection, broker's quorum client and admin tool presents {@code
 * keyManager}'s certificate and accepts only peers whose certificate chains to {@code
 * trustManager}'s CAs; a peer without one is refused at the handshake. Absent (null where a
 * settings object holds it) means plaintext.
 *
 * <p>gRPC checks, on every client connection, that the server's certificate names the host of the
 * address dialled (the controller's {@code controller.quorum.voters} entry), whatever {@code
 * ssl.endpoint.identification.algorithm} says: a controller's certificate must name its advertised
 * host. Immutable; the managers are thread-safe.
 *
 * @param keyManager this node's private key and certificate chain
 * @param trustManager the CAs trusted to sign the peers' certificates
 * @param protocols the TLS versions offered ({@code ssl.enabled.protocols})
 * @param admission who of the peers that completed the handshake a Raft server of this node serves
 */
public record QuorumTls(
    X509KeyManager keyManager,
    X509TrustManager trustManager,
    List<String> protocols,
    QuorumAdmission admission) {

  public QuorumTls {
    Objects.requireNonNull(keyManager, "keyManager");
    Objects.requireNonNull(trustManager, "trustManager");
    Objects.requireNonNull(admission, "admission");
    protocols = List.copyOf(protocols);
  }

  /** Serving every peer that completes the handshake ({@link QuorumAdmission#EVERY_MEMBER}). */
  public QuorumTls(
      X509KeyManager keyManager, X509TrustManager trustManager, List<String> protocols) {
    this(keyManager, trustManager, protocols, QuorumAdmission.EVERY_MEMBER);
  }

  /** The same material, its servers serving only the peers {@code a} admits. */
  public QuorumTls admitting(QuorumAdmission a) {
    return new QuorumTls(keyManager, trustManager, protocols, a);
  }

  @Override
  public String toString() {
    return "QuorumTls[mutual, protocols="
        + protocols
        + (admission == QuorumAdmission.EVERY_MEMBER ? "" : ", admission restricted")
        + "]";
  }
}
