package dev.spool.broker.kafka.codec;

import dev.spool.protocol.message.ListOffsetsRequest;
import dev.spool.protocol.message.ListOffsetsResponse;
import dev.spool.protocol.message.OffsetForLeaderEpochRequest;
import dev.spool.protocol.message.OffsetForLeaderEpochResponse;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;

/**
 * ListOffsets and OffsetForLeaderEpoch between Kafka and Spool. Both name topics and partitions as
 * Spool does and come from clients, which read up to the high watermark. ListOffsets' special
 * timestamps: -1 latest and -2 earliest pass through, as does -3 (the record with the largest
 * timestamp, v7+); -4 (earliest local, v8+) is -2, since a Spool log is all local; -5 (latest
 * tiered, v9+) and -6 (earliest pending upload, v11) have nothing in tiered storage and are
 * answered as Kafka answers them without it: offset -1, timestamp -1.
 *
 * <p>Threads: stateless; any thread.
 */
public final class OffsetsCodec {
  private OffsetsCodec() {}

  private static final long EARLIEST = -2;
  private static final long EARLIEST_LOCAL = -4;
  private static final long LATEST_TIERED = -5;
  private static final long EARLIEST_PENDING_UPLOAD = -6;

  public static ListOffsetsRequest listOffsetsToSpool(KafkaRequest r) {
    ListOffsetsRequestData req = r.body();
    ListOffsetsRequest.Builder b = ListOffsetsRequest.newBuilder().setReplicaId(-1);
    for (ListOffsetsRequestData.ListOffsetsTopic t : req.topics()) {
      ListOffsetsRequest.Topic.Builder tb = ListOffsetsRequest.Topic.newBuilder().setName(t.name());
      for (ListOffsetsRequestData.ListOffsetsPartition p : t.partitions()) {
        // -5 and -6 ask Spool for -2 too: the answer still says whether this broker leads
        // (and the epoch is current); its offset is then replaced (listOffsetsToKafka).
        long ts =
            p.timestamp() == EARLIEST_LOCAL
                    || p.timestamp() == LATEST_TIERED
                    || p.timestamp() == EARLIEST_PENDING_UPLOAD
                ? EARLIEST
                : p.timestamp();
        tb.addPartitions(
            ListOffsetsRequest.Partition.newBuilder()
                .setPartition(p.partitionIndex())
                .setTimestamp(ts)
                .setCurrentLeaderEpoch(p.currentLeaderEpoch()));
      }
      b.addTopics(tb);
    }
    return b.build();
  }

  public static KafkaResponse listOffsetsToKafka(KafkaRequest r, ListOffsetsResponse resp) {
    ListOffsetsRequestData req = r.body();
    List<ListOffsetsResponseData.ListOffsetsTopicResponse> topics = new ArrayList<>();
    for (int i = 0; i < resp.getTopicsCount(); i++) {
      ListOffsetsResponse.Topic t = resp.getTopics(i);
      List<ListOffsetsRequestData.ListOffsetsPartition> asked = req.topics().get(i).partitions();
      List<ListOffsetsResponseData.ListOffsetsPartitionResponse> parts = new ArrayList<>();
      for (int j = 0; j < t.getPartitionsCount(); j++) {
        ListOffsetsResponse.Partition p = t.getPartitions(j);
        long ts = asked.get(j).timestamp();
        ListOffsetsResponseData.ListOffsetsPartitionResponse pr =
            new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                .setPartitionIndex(p.getPartition())
                .setErrorCode(KafkaErrors.code(p.getErrorCode()))
                .setTimestamp(p.getTimestamp())
                .setOffset(p.getOffset())
                // A field of v4+: written to v1-v3 it fails the whole answer (librdkafka 2.0 asks
                // at v2).
                .setLeaderEpoch(r.version() >= 4 ? p.getLeaderEpoch() : -1);
        if ((ts == LATEST_TIERED || ts == EARLIEST_PENDING_UPLOAD) && pr.errorCode() == 0) {
          pr.setTimestamp(-1).setOffset(-1).setLeaderEpoch(-1);
        }
        parts.add(pr);
      }
      topics.add(
          new ListOffsetsResponseData.ListOffsetsTopicResponse()
              .setName(t.getName())
              .setPartitions(parts));
    }
    return r.respond(new ListOffsetsResponseData().setThrottleTimeMs(0).setTopics(topics));
  }

  public static OffsetForLeaderEpochRequest offsetForLeaderEpochToSpool(KafkaRequest r) {
    OffsetForLeaderEpochRequestData req = r.body();
    OffsetForLeaderEpochRequest.Builder b = OffsetForLeaderEpochRequest.newBuilder();
    for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic t : req.topics()) {
      OffsetForLeaderEpochRequest.Topic.Builder tb =
          OffsetForLeaderEpochRequest.Topic.newBuilder().setName(t.topic());
      for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition p : t.partitions()) {
        tb.addPartitions(
            OffsetForLeaderEpochRequest.Partition.newBuilder()
                .setPartition(p.partition())
                .setCurrentLeaderEpoch(p.currentLeaderEpoch())
                .setLeaderEpoch(p.leaderEpoch()));
      }
      b.addTopics(tb);
    }
    return b.build();
  }

  public static KafkaResponse offsetForLeaderEpochToKafka(
      KafkaRequest r, OffsetForLeaderEpochResponse resp) {
    OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection topics =
        new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResultCollection();
    for (OffsetForLeaderEpochResponse.Topic t : resp.getTopicsList()) {
      List<OffsetForLeaderEpochResponseData.EpochEndOffset> parts = new ArrayList<>();
      for (OffsetForLeaderEpochResponse.Partition p : t.getPartitionsList()) {
        parts.add(
            new OffsetForLeaderEpochResponseData.EpochEndOffset()
                .setErrorCode(KafkaErrors.code(p.getErrorCode()))
                .setPartition(p.getPartition())
                .setLeaderEpoch(p.getLeaderEpoch())
                .setEndOffset(p.getEndOffset()));
      }
      topics.add(
          new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult()
              .setTopic(t.getName())
              .setPartitions(parts));
    }
    return r.respond(new OffsetForLeaderEpochResponseData().setThrottleTimeMs(0).setTopics(topics));
  }
}
