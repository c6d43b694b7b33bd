package dev.spool.network;

/**
 * Life of one connection to one node. Transitions (each logged once by {@link NetworkClient}):
 *
 * <pre>
 *   BACKOFF      -> CONNECTING   the node's reconnect wait has passed
 *   CONNECTING   -> HANDSHAKING  TCP connected; ApiVersions is sent before anything else
 *   HANDSHAKING  -> READY        ApiVersions answered (and, with SASL, the login completed:
 *                                SaslHandshake, SaslAuthenticate); requests are written from now on
 *   any          -> CLOSED       connect failure, handshake failure, peer close, request timeout,
 *                                invalid frame, client close; every queued and in-flight request fails
 * </pre>
 *
 * A CLOSED connection is never reused: the next request to that node creates a new one, in BACKOFF
 * while the node's reconnect wait lasts.
 */
public enum ConnectionState {
  BACKOFF,
  CONNECTING,
  HANDSHAKING,
  READY,
  CLOSED
}
