package dev.spool.testing.probe;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.DescribeClusterRequest;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.testing.RawFrameClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import javax.net.ssl.SSLSocketFactory;

/**
 * A blocking one-request client that asks one node directly, on its own broker address (never
 * through a fault proxy and never redirected by metadata), what it believes: its Metadata (leaders,
 * epochs, ISRs as this node's image has them) or DescribeCluster (the quorum as this node sees it).
 * The cluster harnesses use it to find leaders and to observe each node's view; the client library
 * could not say which broker answered.
 *
 * <p>One connection per request, bounded by {@code timeoutMs} for connect and for the answer, so a
 * paused or partitioned node costs at most that. Thread-safe (no shared state).
 */
public final class NodeProbe {
  private final InetSocketAddress address;
  private final int timeoutMs;
  private final SSLSocketFactory tls;
  private final RawFrameClient.Login login;

  public NodeProbe(InetSocketAddress address, int timeoutMs) {
    this(address, timeoutMs, null);
  }

  /** A probe that connects over TLS when {@code tls} is not null (a TLS Spool listener). */
  public NodeProbe(InetSocketAddress address, int timeoutMs, SSLSocketFactory tls) {
    this(address, timeoutMs, tls, null);
  }

  /** As {@link #NodeProbe(InetSocketAddress, int, SSLSocketFactory)}, logging in on a SASL one. */
  public NodeProbe(
      InetSocketAddress address, int timeoutMs, SSLSocketFactory tls, RawFrameClient.Login login) {
    this.address = address;
    this.timeoutMs = timeoutMs;
    this.tls = tls;
    this.login = login;
  }

  public InetSocketAddress address() {
    return address;
  }

  /** The node's metadata for {@code topics} (all topics when empty). */
  public MetadataResponse metadata(Collection<String> topics) throws IOException {
    MetadataRequest req =
        MetadataRequest.newBuilder().addAllTopics(topics).setAllTopics(topics.isEmpty()).build();
    return MetadataResponse.parseFrom(call(ApiKey.METADATA, req));
  }

  /**
   * The cluster and quorum as the node sees them (the error is set if the quorum did not answer).
   */
  public DescribeClusterResponse describeCluster() throws IOException {
    return DescribeClusterResponse.parseFrom(
        call(ApiKey.DESCRIBE_CLUSTER, DescribeClusterRequest.getDefaultInstance()));
  }

  private byte[] call(ApiKey api, MessageLite body) throws IOException {
    RequestHeader h =
        RequestHeader.newBuilder()
            .setApiKey(api)
            .setApiVersion(0)
            .setCorrelationId(1)
            .setClientId("cluster-harness-probe")
            .build();
    try (RawFrameClient c = RawFrameClient.connect(address, Duration.ofMillis(timeoutMs), tls)) {
      if (login != null) {
        c.authenticate(login);
      }
      RawFrameClient.Reply r = c.request(h, body, new byte[0]);
      if (r.header().getErrorCode() != ErrorCode.NONE) {
        throw new IOException(
            address
                + " refused "
                + api
                + ": "
                + r.header().getErrorCode()
                + " "
                + r.header().getErrorMessage());
      }
      return r.body();
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw new IOException(address + ": unreadable answer to " + api + ": " + e.getMessage(), e);
    }
  }
}
