package dev.spool.quorum.controller;

import dev.spool.common.ErrorCode;
import dev.spool.config.ConfigException;
import dev.spool.config.TopicConfig;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.protocol.message.DeleteTopicsResponse;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.RecordChecks;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.image.TopicImage;
import dev.spool.quorum.message.ControllerReply;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Topic create / delete / config decisions. Pure: image, request, settings and a seeded random
 * (topic ids, placement rotation) in; a {@link Decision} out. Every invalid input is answered with
 * its ErrorCode and a message and produces no records for that topic.
 */
public final class TopicDecisions {
  private TopicDecisions() {}

  /** Null when {@code name} is a legal topic name, else why not. */
  public static String checkTopicName(String name) {
    return RecordChecks.checkTopicName(name);
  }

  public static UUID newTopicId(Random random) {
    long msb = (random.nextLong() & ~0xF000L) | 0x4000L; // version 4
    long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // IETF variant
    return new UUID(msb, lsb);
  }

  // ---------------------------------------------------------------- create

  public static Decision createTopics(
      CreateTopicsRequest req, MetadataImage image, ControllerSettings s, Random random) {
    CreateTopicsResponse.Builder resp = CreateTopicsResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    Set<String> seen = new HashSet<>();
    Set<String> duplicates = new HashSet<>();
    for (CreateTopicsRequest.Topic t : req.getTopicsList()) {
      if (!seen.add(t.getName())) {
        duplicates.add(t.getName());
      }
    }
    List<BrokerRegistration> eligible = image.eligibleBrokers();
    for (CreateTopicsRequest.Topic t : req.getTopicsList()) {
      int item = resp.getTopicsCount();
      CreateTopicsResponse.Result.Builder r =
          CreateTopicsResponse.Result.newBuilder().setName(t.getName());
      if (duplicates.contains(t.getName())) {
        resp.addTopics(
            fail(
                r,
                ErrorCode.INVALID_REQUEST,
                "topic '" + t.getName() + "' appears more than once in the request"));
        continue;
      }
      Plan plan = plan(t, image, eligible, s, random);
      if (plan.error != null) {
        resp.addTopics(fail(r, plan.error, plan.message));
        continue;
      }
      String topicId = newTopicId(random).toString();
      r.setTopicId(topicId)
          .setNumPartitions(plan.assignment.size())
          .setReplicationFactor(plan.assignment.get(0).size());
      resp.addTopics(r);
      if (req.getValidateOnly()) {
        continue;
      }
      records.add(Records.topic(t.getName(), topicId), item);
      new TreeMap<>(t.getConfigsMap())
          .forEach((k, v) -> records.add(Records.config(topicId, k, v), item));
      for (int p = 0; p < plan.assignment.size(); p++) {
        List<Integer> replicas = plan.assignment.get(p);
        List<Integer> isr = replicas.stream().filter(image::isEligible).toList();
        int leader = isr.isEmpty() ? -1 : isr.get(0);
        if (isr.isEmpty()) {
          isr =
              List.of(
                  replicas.get(
                      0)); // explicit assignment to fenced brokers: offline until one is back
        }
        records.add(Records.partition(topicId, p, replicas, isr, leader, 0, 0), item);
      }
    }
    return records.decision(ControllerReply.newBuilder().setCreateTopics(resp).build());
  }

  private static CreateTopicsResponse.Result fail(
      CreateTopicsResponse.Result.Builder r, ErrorCode code, String message) {
    return r.setErrorCode(code).setErrorMessage(message).build();
  }

  private record Plan(ErrorCode error, String message, List<List<Integer>> assignment) {
    static Plan error(ErrorCode code, String message) {
      return new Plan(code, message, null);
    }
  }

  private static Plan plan(
      CreateTopicsRequest.Topic t,
      MetadataImage image,
      List<BrokerRegistration> eligible,
      ControllerSettings s,
      Random random) {
    String nameProblem = checkTopicName(t.getName());
    if (nameProblem != null) {
      return Plan.error(ErrorCode.INVALID_TOPIC, nameProblem);
    }
    if (image.topic(t.getName()) != null) {
      return Plan.error(
          ErrorCode.TOPIC_ALREADY_EXISTS, "topic '" + t.getName() + "' already exists");
    }
    try {
      TopicConfig.parse(t.getConfigsMap());
    } catch (ConfigException e) {
      return Plan.error(ErrorCode.INVALID_CONFIG, e.getMessage());
    }
    if (t.getAssignmentsCount() > 0) {
      return explicitPlan(t, image, s);
    }
    int partitions = t.getNumPartitions() == -1 ? s.defaultNumPartitions() : t.getNumPartitions();
    if (partitions < 1 || partitions > s.maxPartitionsPerTopic()) {
      return Plan.error(
          ErrorCode.INVALID_PARTITIONS,
          "number of partitions must be between 1 and "
              + s.maxPartitionsPerTopic()
              + ", got "
              + t.getNumPartitions());
    }
    if (eligible.isEmpty()) {
      return Plan.error(
          ErrorCode.INVALID_REPLICATION_FACTOR, "no live broker to place replicas on");
    }
    int rf =
        t.getReplicationFactor() == -1
            ? Math.min(s.defaultReplicationFactor(), eligible.size())
            : t.getReplicationFactor();
    if (rf < 1) {
      return Plan.error(
          ErrorCode.INVALID_REPLICATION_FACTOR,
          "replication factor must be at least 1, got " + t.getReplicationFactor());
    }
    if (rf > eligible.size()) {
      return Plan.error(
          ErrorCode.INVALID_REPLICATION_FACTOR,
          "replication factor "
              + rf
              + " is larger than the number of live brokers ("
              + eligible.size()
              + ")");
    }
    int start = random.nextInt(eligible.size());
    return new Plan(null, null, PartitionPlacer.place(eligible, partitions, rf, start));
  }

  private static Plan explicitPlan(
      CreateTopicsRequest.Topic t, MetadataImage image, ControllerSettings s) {
    if (t.getNumPartitions() != -1 || t.getReplicationFactor() != -1) {
      return Plan.error(
          ErrorCode.INVALID_REQUEST,
          "give either explicit assignments or " + "partitions/replication factor (-1), not both");
    }
    Map<Integer, List<Integer>> byPartition = new HashMap<>();
    for (CreateTopicsRequest.Assignment a : t.getAssignmentsList()) {
      if (byPartition.put(a.getPartition(), a.getReplicasList()) != null) {
        return Plan.error(
            ErrorCode.INVALID_REQUEST, "partition " + a.getPartition() + " is assigned twice");
      }
    }
    int n = byPartition.size();
    if (n > s.maxPartitionsPerTopic()) {
      return Plan.error(
          ErrorCode.INVALID_PARTITIONS, "more than " + s.maxPartitionsPerTopic() + " partitions");
    }
    List<List<Integer>> assignment = new ArrayList<>();
    int rf = -1;
    for (int p = 0; p < n; p++) {
      List<Integer> replicas = byPartition.get(p);
      if (replicas == null) {
        return Plan.error(
            ErrorCode.INVALID_PARTITIONS,
            "assignments must cover partitions 0.." + (n - 1) + " without gaps");
      }
      if (replicas.isEmpty() || new HashSet<>(replicas).size() != replicas.size()) {
        return Plan.error(
            ErrorCode.INVALID_REPLICATION_FACTOR,
            "partition " + p + " has empty or duplicate replicas " + replicas);
      }
      if (rf != -1 && replicas.size() != rf) {
        return Plan.error(
            ErrorCode.INVALID_REPLICATION_FACTOR,
            "all partitions need the same number of replicas");
      }
      rf = replicas.size();
      for (int id : replicas) {
        if (image.broker(id) == null) {
          return Plan.error(
              ErrorCode.INVALID_REPLICATION_FACTOR,
              "broker " + id + " in the assignment of partition " + p + " is not registered");
        }
      }
      assignment.add(List.copyOf(replicas));
    }
    return new Plan(null, null, assignment);
  }

  // ---------------------------------------------------------------- delete

  public static Decision deleteTopics(DeleteTopicsRequest req, MetadataImage image) {
    DeleteTopicsResponse.Builder resp = DeleteTopicsResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    Set<String> done = new HashSet<>();
    for (String name : req.getNamesList()) {
      int item = resp.getTopicsCount();
      DeleteTopicsResponse.Result.Builder r =
          DeleteTopicsResponse.Result.newBuilder().setName(name);
      TopicImage t = image.topic(name);
      if (!done.add(name)) {
        r.setErrorCode(ErrorCode.INVALID_REQUEST)
            .setErrorMessage("topic '" + name + "' appears more than once in the request");
      } else if (t == null) {
        r.setErrorCode(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
            .setErrorMessage("topic '" + name + "' does not exist");
      } else {
        records.add(Records.removeTopic(t.id()), item);
      }
      resp.addTopics(r);
    }
    return records.decision(ControllerReply.newBuilder().setDeleteTopics(resp).build());
  }

  // ---------------------------------------------------------------- configs

  public static Decision alterConfigs(AlterConfigsRequest req, MetadataImage image) {
    AlterConfigsResponse.Builder resp = AlterConfigsResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    Set<String> done = new HashSet<>();
    for (AlterConfigsRequest.Topic t : req.getTopicsList()) {
      int item = resp.getTopicsCount();
      AlterConfigsResponse.Result.Builder r =
          AlterConfigsResponse.Result.newBuilder().setName(t.getName());
      resp.addTopics(r);
      TopicImage topic = image.topic(t.getName());
      if (!done.add(t.getName())) {
        setError(
            resp,
            item,
            ErrorCode.INVALID_REQUEST,
            "topic '" + t.getName() + "' appears more than once in the request");
        continue;
      }
      if (topic == null) {
        setError(
            resp,
            item,
            ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            "topic '" + t.getName() + "' does not exist");
        continue;
      }
      Map<String, String> merged = new HashMap<>(topic.configs());
      String problem = null;
      for (String key : t.getDeleteList()) {
        if (!TopicConfig.DEF.contains(key)) {
          problem = "unknown topic config key '" + key + "'";
        } else if (t.getSetMap().containsKey(key)) {
          problem = "config key '" + key + "' is both set and deleted";
        }
        merged.remove(key);
      }
      merged.putAll(t.getSetMap());
      if (problem == null) {
        try {
          TopicConfig.parse(merged);
        } catch (ConfigException e) {
          problem = e.getMessage();
        }
      }
      if (problem != null) {
        setError(resp, item, ErrorCode.INVALID_CONFIG, problem);
        continue;
      }
      if (req.getValidateOnly()) {
        continue;
      }
      new TreeMap<>(t.getSetMap())
          .forEach((k, v) -> records.add(Records.config(topic.id(), k, v), item));
      t.getDeleteList().stream()
          .sorted()
          .distinct()
          .forEach(k -> records.add(Records.deleteConfig(topic.id(), k), item));
    }
    return records.decision(ControllerReply.newBuilder().setAlterConfigs(resp).build());
  }

  private static void setError(
      AlterConfigsResponse.Builder resp, int item, ErrorCode code, String message) {
    resp.setTopics(
        item, resp.getTopics(item).toBuilder().setErrorCode(code).setErrorMessage(message));
  }
}
