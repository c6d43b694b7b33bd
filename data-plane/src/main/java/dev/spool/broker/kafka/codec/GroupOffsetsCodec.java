package dev.spool.broker.kafka.codec;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.OffsetAndMetadata;
import dev.spool.coordinator.group.api.OffsetCommitRequest;
import dev.spool.coordinator.group.api.OffsetDeleteResult;
import dev.spool.coordinator.group.api.OffsetFetchRequest;
import dev.spool.coordinator.group.api.OffsetFetchResult;
import dev.spool.coordinator.group.api.PartitionResult;
import dev.spool.protocol.RequestChecks;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.TopicImage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetCommit, OffsetFetch and OffsetDelete between Kafka and the group coordinator. From version
 * 10 OffsetCommit and OffsetFetch name topics by id; an id the metadata image does not know is
 * answered UNKNOWN_TOPIC_ID for its partitions without reaching the coordinator, as Kafka does.
 * OffsetFetch from version 8 asks for several groups at once; the coordinator answers each group on
 * its own shard and the answers are put back together here in the order asked.
 *
 * <p>Threads: stateless; any thread.
 */
public final class GroupOffsetsCodec {
  private GroupOffsetsCodec() {}

  // ---------------------------------------------------------------- OffsetCommit

  /**
   * A commit as the coordinator takes it and the partitions refused before it (unknown topic ids),
   * answered alongside the coordinator's results.
   */
  public record CommitCall(
      OffsetCommitRequest request,
      Map<TopicPartition, Uuid> ids,
      Map<TopicPartition, PartitionResult> refused) {}

  public static CommitCall offsetCommitToSpool(KafkaRequest r, MetadataImage image) {
    OffsetCommitRequestData req = r.body();
    boolean byId = r.version() >= 10;
    Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
    Map<TopicPartition, Uuid> ids = new LinkedHashMap<>();
    Map<TopicPartition, PartitionResult> refused = new LinkedHashMap<>();
    for (OffsetCommitRequestData.OffsetCommitRequestTopic t : req.topics()) {
      TopicImage topic = byId ? TopicIds.topic(image, t.topicId()) : null;
      String name = byId ? (topic == null ? t.topicId().toString() : topic.name()) : t.name();
      for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
        TopicPartition tp = RequestChecks.partition(name, p.partitionIndex());
        ids.put(tp, t.topicId());
        if (byId && topic == null) {
          refused.put(
              tp,
              new PartitionResult(ErrorCode.UNKNOWN_TOPIC_ID, "no topic has id " + t.topicId()));
          continue;
        }
        offsets.put(
            tp,
            new OffsetAndMetadata(
                p.committedOffset(),
                p.committedLeaderEpoch(),
                p.committedMetadata() == null ? "" : p.committedMetadata(),
                -1));
      }
    }
    return new CommitCall(
        new OffsetCommitRequest(
            req.groupId(),
            req.memberId() == null ? "" : req.memberId(),
            req.generationIdOrMemberEpoch(),
            offsets,
            r.version() >= 7 ? req.groupInstanceId() : null),
        ids,
        refused);
  }

  public static KafkaResponse offsetCommitToKafka(
      KafkaRequest r, CommitCall call, Map<TopicPartition, PartitionResult> results) {
    Map<TopicPartition, PartitionResult> all = new LinkedHashMap<>(results);
    all.putAll(call.refused());
    boolean byId = r.version() >= 10;
    Map<String, OffsetCommitResponseData.OffsetCommitResponseTopic> topics = new LinkedHashMap<>();
    // In the order asked: the ids map holds every partition of the request, a partition named
    // twice once (Kafka answers it once too).
    for (var e : call.ids().entrySet()) {
      TopicPartition tp = e.getKey();
      PartitionResult res = all.getOrDefault(tp, PartitionResult.OK);
      OffsetCommitResponseData.OffsetCommitResponseTopic t =
          topics.computeIfAbsent(
              tp.topic(),
              n -> {
                var rt = new OffsetCommitResponseData.OffsetCommitResponseTopic();
                return byId ? rt.setTopicId(e.getValue()) : rt.setName(n);
              });
      t.partitions()
          .add(
              new OffsetCommitResponseData.OffsetCommitResponsePartition()
                  .setPartitionIndex(tp.partition())
                  .setErrorCode(KafkaErrors.code(res.error())));
    }
    return r.respond(
        new OffsetCommitResponseData()
            .setThrottleTimeMs(0)
            .setTopics(new ArrayList<>(topics.values())));
  }

  // ---------------------------------------------------------------- OffsetFetch

  /** One group of an OffsetFetch: what to ask the coordinator and how to name topics back. */
  public record FetchGroup(
      OffsetFetchRequest request, Map<String, Uuid> ids, List<TopicPartition> unknownIds) {}

  /** The groups asked for: one before version 8, a batch from version 8. */
  public static List<FetchGroup> offsetFetchToSpool(KafkaRequest r, MetadataImage image) {
    OffsetFetchRequestData req = r.body();
    List<FetchGroup> out = new ArrayList<>();
    if (r.version() < 8) {
      List<TopicPartition> asked = null;
      if (req.topics() != null) {
        asked = new ArrayList<>();
        for (OffsetFetchRequestData.OffsetFetchRequestTopic t : req.topics()) {
          for (int p : t.partitionIndexes()) {
            asked.add(RequestChecks.partition(t.name(), p));
          }
        }
      }
      out.add(
          new FetchGroup(
              new OffsetFetchRequest(req.groupId(), "", -1, asked), Map.of(), List.of()));
      return out;
    }
    boolean byId = r.version() >= 10;
    for (OffsetFetchRequestData.OffsetFetchRequestGroup g : req.groups()) {
      List<TopicPartition> asked = null;
      Map<String, Uuid> ids = new LinkedHashMap<>();
      List<TopicPartition> unknown = new ArrayList<>();
      if (g.topics() != null) {
        asked = new ArrayList<>();
        for (OffsetFetchRequestData.OffsetFetchRequestTopics t : g.topics()) {
          TopicImage topic = byId ? TopicIds.topic(image, t.topicId()) : null;
          for (int p : t.partitionIndexes()) {
            if (byId && topic == null) {
              unknown.add(RequestChecks.partition(t.topicId().toString(), p));
            } else {
              asked.add(RequestChecks.partition(byId ? topic.name() : t.name(), p));
            }
          }
          if (topic != null) {
            ids.put(topic.name(), t.topicId());
          }
        }
      }
      String memberId = r.version() >= 9 && g.memberId() != null ? g.memberId() : "";
      out.add(
          new FetchGroup(
              new OffsetFetchRequest(g.groupId(), memberId, g.memberEpoch(), asked), ids, unknown));
    }
    return out;
  }

  /** Kafka's answer, one result per group of {@code groups} in the same order. */
  public static KafkaResponse offsetFetchToKafka(
      KafkaRequest r, List<FetchGroup> groups, List<OffsetFetchResult> results, MetadataImage img) {
    if (r.version() < 8) {
      return singleGroupAnswer(r, groups.get(0), results.get(0));
    }
    boolean byId = r.version() >= 10;
    List<OffsetFetchResponseData.OffsetFetchResponseGroup> out = new ArrayList<>();
    for (int i = 0; i < groups.size(); i++) {
      FetchGroup g = groups.get(i);
      OffsetFetchResult res = results.get(i);
      OffsetFetchResponseData.OffsetFetchResponseGroup rg =
          new OffsetFetchResponseData.OffsetFetchResponseGroup()
              .setGroupId(g.request().groupId())
              .setErrorCode(KafkaErrors.code(res.error()));
      if (res.error() == ErrorCode.NONE) {
        Map<String, OffsetFetchResponseData.OffsetFetchResponseTopics> topics =
            new LinkedHashMap<>();
        for (var e : answered(g.request(), res).entrySet()) {
          TopicPartition tp = e.getKey();
          Uuid id = byId ? idOf(g.ids(), img, tp.topic()) : null;
          if (byId && Uuid.ZERO_UUID.equals(id)) {
            continue; // a topic deleted since the commit has no id to name it by
          }
          topics
              .computeIfAbsent(
                  tp.topic(),
                  n -> {
                    var t = new OffsetFetchResponseData.OffsetFetchResponseTopics();
                    return byId ? t.setTopicId(id) : t.setName(n);
                  })
              .partitions()
              .add(partitionOf8(tp, e.getValue(), Errors.NONE));
        }
        for (TopicPartition tp : g.unknownIds()) {
          Uuid id = Uuid.fromString(tp.topic());
          topics
              .computeIfAbsent(
                  tp.topic(),
                  n -> new OffsetFetchResponseData.OffsetFetchResponseTopics().setTopicId(id))
              .partitions()
              .add(partitionOf8(tp, null, Errors.UNKNOWN_TOPIC_ID));
        }
        rg.setTopics(new ArrayList<>(topics.values()));
      }
      out.add(rg);
    }
    return r.respond(new OffsetFetchResponseData().setThrottleTimeMs(0).setGroups(out));
  }

  /**
   * The partitions to answer: each one asked, with its offset or none (null), or, when all were
   * asked, each the group has committed.
   */
  private static Map<TopicPartition, OffsetAndMetadata> answered(
      OffsetFetchRequest asked, OffsetFetchResult res) {
    if (asked.partitions() == null) {
      return res.offsets();
    }
    Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
    for (TopicPartition tp : asked.partitions()) {
      out.put(tp, res.offsets().get(tp));
    }
    return out;
  }

  /** A partition without a committed offset: offset -1 and empty metadata, as Kafka answers. */
  private static OffsetFetchResponseData.OffsetFetchResponsePartitions partitionOf8(
      TopicPartition tp, OffsetAndMetadata o, Errors error) {
    return new OffsetFetchResponseData.OffsetFetchResponsePartitions()
        .setPartitionIndex(tp.partition())
        .setCommittedOffset(o == null ? -1 : o.offset())
        .setCommittedLeaderEpoch(o == null ? -1 : o.leaderEpoch())
        .setMetadata(o == null ? "" : o.metadata())
        .setErrorCode(error.code());
  }

  private static KafkaResponse singleGroupAnswer(
      KafkaRequest r, FetchGroup g, OffsetFetchResult res) {
    if (res.error() != ErrorCode.NONE) {
      return r.errorResponse(res.error(), res.message());
    }
    Map<String, OffsetFetchResponseData.OffsetFetchResponseTopic> topics = new LinkedHashMap<>();
    for (var e : answered(g.request(), res).entrySet()) {
      TopicPartition tp = e.getKey();
      OffsetAndMetadata o = e.getValue();
      OffsetFetchResponseData.OffsetFetchResponsePartition p =
          new OffsetFetchResponseData.OffsetFetchResponsePartition()
              .setPartitionIndex(tp.partition())
              .setCommittedOffset(o == null ? -1 : o.offset())
              .setMetadata(o == null ? "" : o.metadata());
      if (r.version() >= 5) {
        p.setCommittedLeaderEpoch(o == null ? -1 : o.leaderEpoch());
      }
      topics
          .computeIfAbsent(
              tp.topic(), n -> new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(n))
          .partitions()
          .add(p);
    }
    return r.respond(
        new OffsetFetchResponseData()
            .setThrottleTimeMs(0)
            .setTopics(new ArrayList<>(topics.values())));
  }

  // ---------------------------------------------------------------- OffsetDelete

  public record DeleteCall(String groupId, List<TopicPartition> partitions) {}

  public static DeleteCall offsetDeleteToSpool(KafkaRequest r) {
    OffsetDeleteRequestData req = r.body();
    List<TopicPartition> parts = new ArrayList<>();
    for (OffsetDeleteRequestData.OffsetDeleteRequestTopic t : req.topics()) {
      for (OffsetDeleteRequestData.OffsetDeleteRequestPartition p : t.partitions()) {
        parts.add(RequestChecks.partition(t.name(), p.partitionIndex()));
      }
    }
    return new DeleteCall(req.groupId(), parts);
  }

  public static KafkaResponse offsetDeleteToKafka(KafkaRequest r, OffsetDeleteResult res) {
    if (res.error() != ErrorCode.NONE) {
      return r.errorResponse(res.error(), res.message());
    }
    OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection topics =
        new OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection();
    res.partitions()
        .forEach(
            (tp, pr) -> {
              OffsetDeleteResponseData.OffsetDeleteResponseTopic t = topics.find(tp.topic());
              if (t == null) {
                t = new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(tp.topic());
                topics.add(t);
              }
              if (t.partitions().find(tp.partition()) == null) {
                t.partitions()
                    .add(
                        new OffsetDeleteResponseData.OffsetDeleteResponsePartition()
                            .setPartitionIndex(tp.partition())
                            .setErrorCode(KafkaErrors.code(pr.error())));
              }
            });
    return r.respond(
        new OffsetDeleteResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(Errors.NONE.code())
            .setTopics(topics));
  }

  /** The id the request named {@code topic} by, else the image's (looked up only then). */
  private static Uuid idOf(Map<String, Uuid> named, MetadataImage img, String topic) {
    Uuid id = named.get(topic);
    return id != null ? id : TopicIds.idOf(img, topic);
  }
}
