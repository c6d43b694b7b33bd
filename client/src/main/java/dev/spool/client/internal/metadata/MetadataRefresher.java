package dev.spool.client.internal.metadata;

import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.network.ClientResponse;
import dev.spool.network.NetworkClient;
import dev.spool.network.Node;
import dev.spool.network.WakeupTimer;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link Metadata} fresh over a {@link NetworkClient}: sends one Metadata request at a time
 * to the least-loaded known broker (the bootstrap addresses while no broker is known or every known
 * broker is in reconnect backoff), when {@link Metadata#timeToNextUpdateMs} says so. A dropped
 * connection asks for a refresh. Runs on the network client's I/O thread.
 */
public final class MetadataRefresher implements NetworkClient.ConnectionListener {
  private static final Logger log = LoggerFactory.getLogger(MetadataRefresher.class);

  private final Metadata metadata;
  private final NetworkClient network;
  private final Clock clock;
  private final long requestTimeoutMs;
  private final AtomicBoolean wakeupPending = new AtomicBoolean();
  // I/O thread only:
  private boolean inFlight;
  private final WakeupTimer timer;
  private volatile boolean closed;

  public MetadataRefresher(
      Metadata metadata, NetworkClient network, Clock clock, long requestTimeoutMs) {
    this.metadata = metadata;
    this.network = network;
    this.clock = clock;
    this.timer = new WakeupTimer(network.eventLoop(), clock, this::maybeUpdate);
    this.requestTimeoutMs = requestTimeoutMs;
    network.addListener(this);
    metadata.setWakeup(this::wakeup);
  }

  /** Runs a refresh check on the I/O thread soon; callable from any thread, coalesced. */
  public void wakeup() {
    if (closed || !wakeupPending.compareAndSet(false, true)) {
      return;
    }
    try {
      network
          .eventLoop()
          .execute(
              () -> {
                wakeupPending.set(false);
                maybeUpdate();
              });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      wakeupPending.set(false);
    }
  }

  public void close() {
    closed = true;
  }

  @Override
  public void onDisconnected(Node node, SpoolException cause) {
    if (!node.isBootstrap()) {
      metadata.requestUpdate();
    }
  }

  /** Sends a refresh if one is due, else arms a timer for when it will be. I/O thread only. */
  public void maybeUpdate() {
    if (closed || inFlight) {
      return;
    }
    long now = clock.monotonicMs();
    long delay = metadata.timeToNextUpdateMs(now);
    if (delay > 0) {
      timer.wakeAt(now + delay);
      return;
    }
    Node node = leastLoadedNode(metadata.avoidedNode());
    Set<String> topics = metadata.wantedTopics();
    MetadataRequest request = MetadataRequest.newBuilder().addAllTopics(topics).build();
    inFlight = true;
    metadata.attemptStarted(now);
    log.debug("metadata refresh from {} for topics {}", node, topics);
    network
        .send(node, ApiKey.METADATA, request, requestTimeoutMs)
        .whenComplete(
            (response, error) -> {
              inFlight = false;
              try (ClientResponse r = response) {
                if (error != null) {
                  SpoolException cause = asSpoolException(error);
                  log.debug("metadata refresh from {} failed: {}", node, cause.getMessage());
                  metadata.failedUpdate(clock.monotonicMs(), cause);
                } else {
                  metadata.update(r.body(MetadataResponse.class), topics, clock.monotonicMs());
                  metadata.refreshedFrom(node.id());
                }
              }
              maybeUpdate();
            });
  }

  /**
   * The node for a request any broker can answer: the least-loaded known broker, or a bootstrap
   * address while no broker is known or every known one is waiting to reconnect. I/O thread only.
   */
  public Node leastLoadedNode() {
    return leastLoadedNode(-1);
  }

  /** As {@link #leastLoadedNode()}, but not broker {@code avoid} while another is known. */
  Node leastLoadedNode(int avoid) {
    MetadataSnapshot s = metadata.snapshot();
    Collection<Node> candidates = s.brokerNodes();
    if (avoid >= 0 && candidates.size() > 1) {
      candidates = candidates.stream().filter(n -> n.id() != avoid).toList();
    }
    Node best = candidates.isEmpty() ? null : network.leastLoadedNode(candidates);
    if (best == null || network.reconnectDelayMs(best) > 0) {
      Node boot = network.leastLoadedNode(metadata.bootstrapNodes());
      if (best == null || network.reconnectDelayMs(boot) < network.reconnectDelayMs(best)) {
        best = boot;
      }
    }
    return best;
  }

  /** Unwraps a future's failure into the SpoolException the rest of the client reads. */
  public static SpoolException asSpoolException(Throwable error) {
    Throwable t =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (t instanceof SpoolException se) {
      return se;
    }
    return new SpoolException(ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(t.getMessage()), t);
  }
}
