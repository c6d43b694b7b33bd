package dev.spool.quorum.controller;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.CreatePartitionsRequest;
import dev.spool.protocol.message.CreatePartitionsResponse;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.image.TopicImage;
import dev.spool.quorum.message.ControllerReply;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * CreatePartitions: grows a topic's partition count, never shrinks it (a partition's records and
 * the keys hashed to it cannot be taken back). Pure, as every decision: image, request, settings
 * and a seeded random (placement rotation) in, a {@link Decision} out.
 *
 * <p>The new partitions of a topic are one {@code AddPartitionsRecord}, applied all or none and
 * only while the topic still has the partition count the decision saw: decisions read the last
 * applied image, so two growths of one topic decided close together both pass here, and the one
 * committed second must fail whole rather than add a part of its partitions. They are placed as a
 * new topic's partitions are ({@link PartitionPlacer}), counting the topic's existing replicas as
 * load already taken, with the topic's replication factor; or on the replicas the request names,
 * which must be registered, unfenced brokers not in controlled shutdown, without duplicates, as
 * many as the topic's replication factor. Every replica is eligible, so every new partition starts
 * with its whole replica set in the ISR and the first replica as leader, as a created topic's do.
 *
 * <p>Every invalid topic is answered with its error code and a message and produces no records; the
 * other topics of the request still grow.
 */
public final class PartitionGrowthDecisions {
  private PartitionGrowthDecisions() {}

  public static Decision createPartitions(
      CreatePartitionsRequest req, MetadataImage image, ControllerSettings s, Random random) {
    CreatePartitionsResponse.Builder resp = CreatePartitionsResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    Set<String> seen = new HashSet<>();
    Set<String> duplicates = new HashSet<>();
    for (CreatePartitionsRequest.Topic t : req.getTopicsList()) {
      if (!seen.add(t.getName())) {
        duplicates.add(t.getName());
      }
    }
    for (CreatePartitionsRequest.Topic t : req.getTopicsList()) {
      int item = resp.getTopicsCount();
      CreatePartitionsResponse.Result.Builder r =
          CreatePartitionsResponse.Result.newBuilder().setName(t.getName());
      TopicImage topic = image.topic(t.getName());
      Growth g =
          duplicates.contains(t.getName())
              ? Growth.error(
                  ErrorCode.INVALID_REQUEST,
                  "topic '" + t.getName() + "' appears more than once in the request")
              : plan(t, topic, image, s, random);
      if (g.error != null) {
        r.setErrorCode(g.error).setErrorMessage(g.message);
        if (topic != null) {
          r.setCount(topic.partitionCount());
        }
        resp.addTopics(r);
        continue;
      }
      resp.addTopics(r.setCount(t.getCount()));
      if (req.getValidateOnly()) {
        continue;
      }
      records.add(Records.addPartitions(topic.id(), topic.partitionCount(), g.assignment), item);
    }
    return records.decision(ControllerReply.newBuilder().setCreatePartitions(resp).build());
  }

  /** The replicas of each new partition, or why the topic cannot grow. */
  private record Growth(ErrorCode error, String message, List<List<Integer>> assignment) {
    static Growth error(ErrorCode code, String message) {
      return new Growth(code, message, null);
    }
  }

  private static Growth plan(
      CreatePartitionsRequest.Topic t,
      TopicImage topic,
      MetadataImage image,
      ControllerSettings s,
      Random random) {
    if (topic == null) {
      return Growth.error(
          ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "topic '" + t.getName() + "' does not exist");
    }
    int current = topic.partitionCount();
    if (t.getCount() < current) {
      return Growth.error(
          ErrorCode.INVALID_PARTITIONS,
          "topic '"
              + t.getName()
              + "' has "
              + current
              + " partitions, more than the requested "
              + t.getCount()
              + ": a partition count can only grow");
    }
    if (t.getCount() == current) {
      return Growth.error(
          ErrorCode.INVALID_PARTITIONS,
          "topic '" + t.getName() + "' already has " + current + " partitions");
    }
    if (t.getCount() > s.maxPartitionsPerTopic()) {
      return Growth.error(
          ErrorCode.INVALID_PARTITIONS,
          "number of partitions must be at most "
              + s.maxPartitionsPerTopic()
              + ", got "
              + t.getCount());
    }
    int added = t.getCount() - current;
    int rf = topic.replicationFactor();
    if (t.getAssignmentsCount() > 0) {
      return explicit(t, image, added, rf);
    }
    List<BrokerRegistration> eligible = image.eligibleBrokers();
    if (rf > eligible.size()) {
      return Growth.error(
          ErrorCode.INVALID_REPLICATION_FACTOR,
          "topic '"
              + t.getName()
              + "' has replication factor "
              + rf
              + " but only "
              + eligible.size()
              + " brokers can take new replicas");
    }
    List<List<Integer>> existing =
        topic.partitions().stream().map(PartitionState::replicas).toList();
    int start = random.nextInt(eligible.size());
    return new Growth(null, null, PartitionPlacer.place(eligible, existing, added, rf, start));
  }

  private static Growth explicit(
      CreatePartitionsRequest.Topic t, MetadataImage image, int added, int rf) {
    if (t.getAssignmentsCount() != added) {
      return Growth.error(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          "growing '"
              + t.getName()
              + "' by "
              + added
              + " partitions needs "
              + added
              + " assignments, got "
              + t.getAssignmentsCount());
    }
    int first = t.getCount() - added;
    List<List<Integer>> out = new ArrayList<>();
    for (int i = 0; i < added; i++) {
      List<Integer> replicas = t.getAssignments(i).getReplicasList();
      String where = "the assignment of new partition " + (first + i) + " " + replicas;
      if (replicas.size() != rf) {
        return Growth.error(
            ErrorCode.INVALID_REPLICA_ASSIGNMENT,
            where
                + " has "
                + replicas.size()
                + " replicas; the topic's replication factor is "
                + rf);
      }
      if (new HashSet<>(replicas).size() != replicas.size()) {
        return Growth.error(ErrorCode.INVALID_REPLICA_ASSIGNMENT, where + " repeats a broker");
      }
      for (int id : replicas) {
        BrokerRegistration b = image.broker(id);
        if (b == null) {
          return Growth.error(
              ErrorCode.INVALID_REPLICA_ASSIGNMENT,
              where + " names broker " + id + ", which is not registered");
        }
        if (!b.isEligible()) {
          return Growth.error(
              ErrorCode.INVALID_REPLICA_ASSIGNMENT,
              where
                  + " names broker "
                  + id
                  + ", which is "
                  + (b.fenced() ? "fenced" : "in controlled shutdown"));
        }
      }
      out.add(List.copyOf(replicas));
    }
    return new Growth(null, null, out);
  }
}
