package dev.spool.broker.kafka.codec;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.FetchRequest;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.protocol.message.LeaderHint;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.TopicImage;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Fetch between Kafka and Spool, for consumers only: a Kafka request is always a consumer's
 * (replica id -1, reads up to the high watermark), whatever replica id it carries, since no Kafka
 * follower replicates from Spool. Spool's fetch path does the reading, the long poll and the
 * limits; its answer's file regions become the records fields of Kafka's answer and leave by
 * sendfile ({@link RegionRecords}).
 *
 * <ul>
 *   <li>Fetch sessions (KIP-227): none are created. A full fetch (session epoch 0 or -1) is
 *       answered with session id 0, which keeps Kafka's clients on full fetches; an incremental one
 *       names a session that does not exist: FETCH_SESSION_ID_NOT_FOUND, as Kafka answers once it
 *       evicted a session.
 *   <li>Topic ids (v13+) are resolved against the image; an unknown id is UNKNOWN_TOPIC_ID.
 *   <li>Without transactions the last stable offset is the high watermark and there are no aborted
 *       transactions; read_committed reads what read_uncommitted reads.
 *   <li>No preferred read replica (-1): consumers read from leaders.
 * </ul>
 *
 * <p>Threads: stateless; any thread.
 */
public final class FetchCodec {
  private FetchCodec() {}

  private record Slot(String name, Uuid topicId, int partition, Errors error, String message) {}

  /** A translated request, or the answer when no read is needed ({@link #immediate}). */
  public static final class Call {
    private final FetchRequest request;
    private final List<Slot> slots;
    private final KafkaResponse immediate;

    private Call(FetchRequest request, List<Slot> slots, KafkaResponse immediate) {
      this.request = request;
      this.slots = slots;
      this.immediate = immediate;
    }

    public FetchRequest request() {
      return request;
    }

    /** The answer without reading anything (an unknown fetch session), or null. */
    public KafkaResponse immediate() {
      return immediate;
    }
  }

  public static Call toSpool(KafkaRequest r, MetadataImage image) {
    FetchRequestData req = r.body();
    if (r.version() >= 7 && req.sessionEpoch() != 0 && req.sessionEpoch() != -1) {
      return new Call(
          null,
          List.of(),
          r.respond(
              new FetchResponseData()
                  .setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code())
                  .setSessionId(0)));
    }
    FetchRequest.Builder b =
        FetchRequest.newBuilder()
            .setReplicaId(-1)
            .setMaxWaitMs(req.maxWaitMs())
            .setMinBytes(req.minBytes())
            .setMaxBytes(req.maxBytes());
    List<Slot> slots = new ArrayList<>();
    for (FetchRequestData.FetchTopic t : req.topics()) {
      String name = t.topic();
      if (r.version() >= 13) {
        TopicImage ti = TopicIds.topic(image, t.topicId());
        name = ti == null ? null : ti.name();
      }
      FetchRequest.FetchTopic.Builder ft =
          name == null ? null : FetchRequest.FetchTopic.newBuilder().setName(name);
      for (FetchRequestData.FetchPartition p : t.partitions()) {
        if (ft == null) {
          slots.add(
              new Slot(
                  t.topic(),
                  t.topicId(),
                  p.partition(),
                  Errors.UNKNOWN_TOPIC_ID,
                  "topic id " + t.topicId() + " does not exist"));
          continue;
        }
        slots.add(new Slot(t.topic(), t.topicId(), p.partition(), null, null));
        ft.addPartitions(
            FetchRequest.FetchPartition.newBuilder()
                .setPartition(p.partition())
                .setFetchOffset(p.fetchOffset())
                .setCurrentLeaderEpoch(p.currentLeaderEpoch())
                .setLastFetchedEpoch(p.lastFetchedEpoch())
                .setLogStartOffset(-1)
                .setPartitionMaxBytes(p.partitionMaxBytes()));
      }
      if (ft != null && ft.getPartitionsCount() > 0) {
        b.addTopics(ft);
      }
    }
    return new Call(b.build(), slots, null);
  }

  /**
   * Kafka's answer from Spool's. The file regions of {@code spool} pass to the answer (or are
   * released if this throws).
   */
  public static KafkaResponse toKafka(
      KafkaRequest r, Call call, BrokerResponse spool, MetadataImage image) {
    Iterator<Object> regions = spool.recordParts().iterator();
    List<RegionRecords> owned = new ArrayList<>();
    try {
      FetchResponse resp = (FetchResponse) spool.body();
      Iterator<FetchResponse.PartitionResponse> answers =
          resp.getTopicsList().stream().flatMap(t -> t.getPartitionsList().stream()).iterator();
      List<FetchResponseData.FetchableTopicResponse> topics = new ArrayList<>();
      LeaderEndpoints leaders = new LeaderEndpoints(image);
      FetchResponseData.FetchableTopicResponse current = null;
      for (Slot s : call.slots) {
        if (current == null
            || !java.util.Objects.equals(current.topic(), s.name())
            || !current.topicId().equals(s.topicId())) {
          current =
              new FetchResponseData.FetchableTopicResponse()
                  .setTopic(s.name())
                  .setTopicId(s.topicId());
          topics.add(current);
        }
        FetchResponseData.PartitionData pd =
            new FetchResponseData.PartitionData()
                .setPartitionIndex(s.partition())
                .setHighWatermark(-1)
                .setLastStableOffset(-1)
                .setLogStartOffset(-1)
                .setAbortedTransactions(null)
                .setPreferredReadReplica(-1)
                .setRecords(MemoryRecords.EMPTY);
        if (s.error() != null) {
          pd.setErrorCode(s.error().code());
        } else {
          partition(pd, answers.next(), regions, owned, leaders, r.version());
        }
        current.partitions().add(pd);
      }
      return r.respond(
          new FetchResponseData()
              .setThrottleTimeMs(0)
              .setErrorCode(KafkaErrors.code(resp.getErrorCode()))
              .setSessionId(0)
              .setResponses(topics)
              .setNodeEndpoints(leaders.fetchEndpoints()),
          owned);
    } catch (RuntimeException e) {
      owned.forEach(o -> ReferenceCountUtil.safeRelease(o.region()));
      regions.forEachRemaining(ReferenceCountUtil::safeRelease);
      throw e;
    }
  }

  private static void partition(
      FetchResponseData.PartitionData pd,
      FetchResponse.PartitionResponse a,
      Iterator<Object> regions,
      List<RegionRecords> owned,
      LeaderEndpoints leaders,
      short version) {
    pd.setErrorCode(KafkaErrors.code(a.getErrorCode()))
        .setHighWatermark(a.getHighWatermark())
        .setLastStableOffset(a.getHighWatermark())
        .setLogStartOffset(a.getLogStartOffset());
    if (a.hasDivergingEpoch()) {
      pd.setDivergingEpoch(
          new FetchResponseData.EpochEndOffset()
              .setEpoch(a.getDivergingEpoch().getEpoch())
              .setEndOffset(a.getDivergingEpoch().getEndOffset()));
    }
    // The hint is a tagged field from v12, the leaders' endpoints from v16: writing either to an
    // older version fails the whole answer (found by the fuzzer: Fetch v12 to a follower).
    if (a.hasCurrentLeader() && version >= 12) {
      LeaderHint h = a.getCurrentLeader();
      pd.setCurrentLeader(
          new FetchResponseData.LeaderIdAndEpoch()
              .setLeaderId(h.getLeaderId())
              .setLeaderEpoch(h.getLeaderEpoch()));
      if (version >= 16) {
        leaders.add(h.getLeaderId());
      }
    }
    if (a.getRecordsSize() > 0) {
      RegionRecords records = new RegionRecords((FileRegion) regions.next(), a.getRecordsSize());
      owned.add(records);
      pd.setRecords(records);
    }
    if (a.getErrorCode() != ErrorCode.NONE) {
      pd.setHighWatermark(-1).setLastStableOffset(-1).setLogStartOffset(-1); // as Kafka answers
    }
  }
}
