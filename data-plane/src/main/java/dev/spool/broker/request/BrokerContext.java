package dev.spool.broker.request;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.quota.ClientQuotaManager;
import dev.spool.broker.quota.RequestMeter;
import dev.spool.broker.replication.LeaderHintInfo;
import dev.spool.broker.replication.ReplicaManager;
import dev.spool.broker.security.Authorizer;
import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.AclResourceType;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.Endpoint;
import dev.spool.protocol.message.LeaderHint;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import io.netty.util.Timer;

/**
 * What the request handlers share: this broker's identity, its replicas and metadata image, the
 * quorum, the waiters for admin changes, the producer-id blocks and a timer for long polls.
 * Immutable; every part is thread-safe.
 *
 * @param adminTimeoutMs default for forwarded admin requests that give no timeout of their own
 * @param produceTimeoutMs default acks=all wait for a produce that gives no timeout of its own
 * @param fetchMaxWaitMs cap on a fetch's max_wait_ms (a long poll cannot hold a slot longer)
 * @param activeControllerId the active controller as this broker last heard it, -1 unknown
 * @param authorizer checks each request against the ACLs (docs/security.md#acls); {@link
 *     Authorizer#NONE} allows everything
 * @param quotas the client quotas produce and fetch are counted against (docs/security.md#quotas)
 */
public record BrokerContext(
    int brokerId,
    String clusterId,
    ReplicaManager replicas,
    QuorumClient quorum,
    MetadataWaiters metadataWaiters,
    ProducerIdManager producerIds,
    Timer timer,
    Clock clock,
    boolean autoCreateTopics,
    long adminTimeoutMs,
    long produceTimeoutMs,
    int fetchMaxWaitMs,
    java.util.function.IntSupplier activeControllerId,
    dev.spool.broker.metrics.BrokerMetrics metrics,
    Authorizer authorizer,
    ClientQuotaManager quotas) {

  /** The same context with another authorizer (tests). */
  public BrokerContext withAuthorizer(Authorizer a) {
    return new BrokerContext(
        brokerId,
        clusterId,
        replicas,
        quorum,
        metadataWaiters,
        producerIds,
        timer,
        clock,
        autoCreateTopics,
        adminTimeoutMs,
        produceTimeoutMs,
        fetchMaxWaitMs,
        activeControllerId,
        metrics,
        a,
        quotas);
  }

  public MetadataImage image() {
    return replicas.image();
  }

  /** A LeaderHint with the endpoint, preferring the image's answer when it is newer. */
  public LeaderHint hint(TopicPartition tp, LeaderHintInfo fromPartition) {
    MetadataImage img = image();
    PartitionState st = img.partition(tp);
    int leader = fromPartition == null ? -1 : fromPartition.leaderId();
    int epoch = fromPartition == null ? -1 : fromPartition.leaderEpoch();
    if (st != null && st.leaderEpoch() >= epoch) {
      leader = st.leader();
      epoch = st.leaderEpoch();
    }
    LeaderHint.Builder b = LeaderHint.newBuilder().setLeaderId(leader).setLeaderEpoch(epoch);
    BrokerRegistration r = leader >= 0 ? img.broker(leader) : null;
    if (r != null) {
      b.setEndpoint(Endpoint.newBuilder().setHost(r.host()).setPort(r.port()));
    }
    return b.build();
  }

  /** Valid partition numbers only: a negative one cannot name a TopicPartition. */
  public static TopicPartition tpOrNull(String topic, int partition) {
    return partition < 0 || topic.isEmpty() ? null : new TopicPartition(topic, partition);
  }

  /**
   * Counts {@code bytes} of a {@code kind} request by {@code caller} with {@code clientId} against
   * its client quota and answers its throttle time (docs/security.md#quotas); both listeners count
   * through here.
   */
  public long quotaThrottleMs(
      ClientQuotaManager.Kind kind, Caller caller, String clientId, long bytes) {
    return quotas.recordAndGetThrottleMs(
        kind, caller.principal(), clientId, bytes, clock.monotonicMs());
  }

  /**
   * The meter of a request by {@code caller} with {@code clientId} when a {@code
   * request_percentage} quota applies to it (docs/security.md#quotas), else null. A principal the
   * authorizer allows CLUSTER_ACTION on the cluster (the brokers, super users) is exempt, as Kafka
   * exempts cluster actions; without an authorizer only replicas' fetches are exempt ({@link
   * FetchHandler}). Both listeners ask here.
   */
  public RequestMeter requestMeter(Caller caller, String clientId) {
    RequestMeter meter = quotas.requestMeter(caller.principal(), clientId);
    if (meter == null
        || authorizer.enabled()
            && authorizer
                .decide(
                    caller.principal(),
                    caller.host(),
                    AclOperation.CLUSTER_ACTION,
                    AclResourceType.CLUSTER,
                    AclResourceType.CLUSTER_NAME)
                .allowed()) {
      return null;
    }
    return meter;
  }

  /**
   * The throttle time of a fetch {@code answer} ({@link #quotaThrottleMs}): a consumer's fetch
   * counts the answer's size, as Kafka does (its records are nearly all of it); a replica's fetch
   * ({@code replicaId} >= 0) is not a client's and counts nothing. Both listeners count here.
   */
  public long fetchThrottleMs(
      int replicaId, Caller caller, String clientId, BrokerResponse answer) {
    if (replicaId >= 0) {
      return 0;
    }
    long bytes =
        answer.recordBytes() + (answer.body() == null ? 0 : answer.body().getSerializedSize());
    return quotaThrottleMs(ClientQuotaManager.Kind.FETCH, caller, clientId, bytes);
  }

  public long adminTimeout(int requested) {
    return requested > 0 ? requested : adminTimeoutMs;
  }
}
