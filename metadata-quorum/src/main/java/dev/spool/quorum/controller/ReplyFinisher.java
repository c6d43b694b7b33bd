package dev.spool.quorum.controller;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.protocol.message.CreatePartitionsResponse;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteTopicsResponse;
import dev.spool.protocol.message.ElectLeadersResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.TopicImage;
import dev.spool.quorum.message.AlterPartitionResponse;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.ControllerWriteResponse;
import dev.spool.quorum.message.MetadataEntry;
import dev.spool.quorum.message.RecordResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.ObjIntConsumer;

/**
 * Completes the reply of a committed {@link MetadataEntry} from its records' outcomes: an item
 * (topic, partition, ...) whose decision succeeded fails with the error of its first rejected
 * record. Runs at apply time on every controller, so it is pure and deterministic too; the Raft
 * index of the entry is the answer's metadata offset (and a registration's broker epoch).
 */
public final class ReplyFinisher {
  private ReplyFinisher() {}

  public static ControllerReply finish(
      MetadataEntry entry, List<RecordResult> results, MetadataImage after, long offset) {
    ControllerReply.Builder reply = entry.getReply().toBuilder().setMetadataOffset(offset);
    Map<Integer, RecordResult> errors = firstErrors(entry.getRecordItemList(), results);
    switch (reply.getResponseCase()) {
      case REGISTER -> {
        RecordResult r = firstError(errors, 0);
        var b = reply.getRegisterBuilder();
        if (r != null) {
          b.setErrorCode(r.getErrorCode()).setErrorMessage(r.getErrorMessage());
        } else if (b.getErrorCode() == ErrorCode.NONE && !results.isEmpty()) {
          b.setBrokerEpoch(offset);
        }
      }
      case ALLOCATE_PRODUCER_IDS -> {
        RecordResult r = firstError(errors, 0);
        if (r != null) {
          reply
              .getAllocateProducerIdsBuilder()
              .setErrorCode(r.getErrorCode())
              .setErrorMessage(r.getErrorMessage())
              .setProducerIdStart(-1)
              .setProducerIdLen(0);
        }
      }
      case CREATE_TOPICS -> {
        CreateTopicsResponse.Builder b = reply.getCreateTopicsBuilder();
        failItems(
            b.getTopicsCount(),
            errors,
            i -> b.getTopics(i).getErrorCode(),
            (r, i) ->
                b.setTopics(
                    i,
                    b.getTopics(i).toBuilder()
                        .setErrorCode(r.getErrorCode())
                        .setErrorMessage(r.getErrorMessage())));
      }
      case CREATE_PARTITIONS -> {
        // A rejected AddPartitionsRecord (another growth of the topic committed first) fails the
        // topic and added nothing; the answer carries the count that stands.
        CreatePartitionsResponse.Builder b = reply.getCreatePartitionsBuilder();
        for (int i = 0; i < b.getTopicsCount(); i++) {
          RecordResult r = firstError(errors, i);
          if (r != null && b.getTopics(i).getErrorCode() == ErrorCode.NONE) {
            TopicImage t = after.topic(b.getTopics(i).getName());
            b.setTopics(
                i,
                b.getTopics(i).toBuilder()
                    .setErrorCode(r.getErrorCode())
                    .setErrorMessage(r.getErrorMessage())
                    .setCount(t == null ? 0 : t.partitionCount()));
          }
        }
      }
      case DELETE_TOPICS -> {
        DeleteTopicsResponse.Builder b = reply.getDeleteTopicsBuilder();
        for (int i = 0; i < b.getTopicsCount(); i++) {
          RecordResult r = firstError(errors, i);
          if (r != null && b.getTopics(i).getErrorCode() == ErrorCode.NONE) {
            b.setTopics(
                i,
                b.getTopics(i).toBuilder()
                    .setErrorCode(
                        r.getErrorCode() == ErrorCode.UNKNOWN_TOPIC_ID
                            ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                            : r.getErrorCode())
                    .setErrorMessage(r.getErrorMessage()));
          }
        }
      }
      case ALTER_CONFIGS -> {
        AlterConfigsResponse.Builder b = reply.getAlterConfigsBuilder();
        failItems(
            b.getTopicsCount(),
            errors,
            i -> b.getTopics(i).getErrorCode(),
            (r, i) ->
                b.setTopics(
                    i,
                    b.getTopics(i).toBuilder()
                        .setErrorCode(r.getErrorCode())
                        .setErrorMessage(r.getErrorMessage())));
      }
      case ALTER_USER_SCRAM_CREDENTIALS -> {
        var b = reply.getAlterUserScramCredentialsBuilder();
        failItems(
            b.getResultsCount(),
            errors,
            i -> b.getResults(i).getErrorCode(),
            (r, i) ->
                b.setResults(
                    i,
                    b.getResults(i).toBuilder()
                        .setErrorCode(r.getErrorCode())
                        .setErrorMessage(r.getErrorMessage())));
      }
      case CREATE_ACLS, DELETE_ACLS -> finishAcls(reply, errors);
      case ALTER_CLIENT_QUOTAS -> finishClientQuotas(reply.getAlterClientQuotasBuilder(), errors);
      case UPDATE_FEATURES -> finishUpdateFeatures(reply.getUpdateFeaturesBuilder(), errors);
      case UNREGISTER_BROKER -> finishUnregister(reply.getUnregisterBrokerBuilder(), errors);
      case ALTER_PARTITION_REASSIGNMENTS ->
          finishReassignments(reply.getAlterPartitionReassignmentsBuilder(), errors);
      case ELECT_LEADERS -> finishElectLeaders(reply.getElectLeadersBuilder(), errors);
      case ALTER_PARTITION -> finishAlterPartition(reply.getAlterPartitionBuilder(), errors, after);
      case CONTROLLER_WRITE -> {
        ControllerWriteResponse.Builder b = reply.getControllerWriteBuilder();
        b.clearResults().addAllResults(results);
      }
      default -> {}
    }
    return reply.build();
  }

  private static void finishUpdateFeatures(
      dev.spool.protocol.message.UpdateFeaturesResponse.Builder b,
      Map<Integer, RecordResult> errors) {
    failItems(
        b.getResultsCount(),
        errors,
        i -> b.getResults(i).getErrorCode(),
        (r, i) ->
            b.setResults(
                i,
                b.getResults(i).toBuilder()
                    .setErrorCode(r.getErrorCode())
                    .setErrorMessage(r.getErrorMessage())));
  }

  /**
   * The record lost a race (the broker registered again, or was named in a replica set, since the
   * controller decided): the answer carries the applier's refusal.
   */
  private static void finishUnregister(
      dev.spool.protocol.message.UnregisterBrokerResponse.Builder b,
      Map<Integer, RecordResult> errors) {
    RecordResult r = firstError(errors, 0);
    if (r != null && b.getErrorCode() == ErrorCode.NONE) {
      b.setErrorCode(r.getErrorCode()).setErrorMessage(r.getErrorMessage());
    }
  }

  private static void finishAlterPartition(
      AlterPartitionResponse.Builder b, Map<Integer, RecordResult> errors, MetadataImage after) {
    for (int i = 0; i < b.getPartitionsCount(); i++) {
      AlterPartitionResponse.PartitionResult.Builder p = b.getPartitions(i).toBuilder();
      RecordResult r = firstError(errors, i);
      if (r != null && p.getErrorCode() == ErrorCode.NONE) {
        p.setErrorCode(r.getErrorCode()).setErrorMessage(r.getErrorMessage());
      }
      TopicImage t = after.topic(p.getTopic());
      PartitionState s = t == null ? null : t.partition(p.getPartition());
      if (s != null) {
        p.setLeader(s.leader())
            .clearIsr()
            .addAllIsr(s.isr())
            .setLeaderEpoch(s.leaderEpoch())
            .setPartitionEpoch(s.partitionEpoch());
      }
      b.setPartitions(i, p);
    }
  }

  private static void finishReassignments(
      dev.spool.protocol.message.AlterPartitionReassignmentsResponse.Builder b,
      Map<Integer, RecordResult> errors) {
    failItems(
        b.getPartitionsCount(),
        errors,
        i -> b.getPartitions(i).getErrorCode(),
        (r, i) ->
            b.setPartitions(
                i,
                b.getPartitions(i).toBuilder()
                    .setErrorCode(r.getErrorCode())
                    .setErrorMessage(r.getErrorMessage())));
  }

  private static void finishElectLeaders(
      ElectLeadersResponse.Builder b, Map<Integer, RecordResult> errors) {
    failItems(
        b.getResultsCount(),
        errors,
        i -> b.getResults(i).getErrorCode(),
        (r, i) ->
            b.setResults(
                i,
                b.getResults(i).toBuilder()
                    .setErrorCode(r.getErrorCode())
                    .setErrorMessage(r.getErrorMessage())));
  }

  /**
   * For each of {@code count} items answered NONE so far whose records were refused, hands the
   * first refusal to {@code fail}.
   */
  private static void failItems(
      int count,
      Map<Integer, RecordResult> errors,
      IntFunction<ErrorCode> answered,
      ObjIntConsumer<RecordResult> fail) {
    for (int i = 0; i < count; i++) {
      RecordResult r = firstError(errors, i);
      if (r != null && answered.apply(i) == ErrorCode.NONE) {
        fail.accept(r, i);
      }
    }
  }

  private static RecordResult firstError(Map<Integer, RecordResult> errors, int item) {
    return errors.get(item);
  }

  /** Item index -> the first rejected record's result, for items with a rejected record. */
  private static Map<Integer, RecordResult> firstErrors(
      List<Integer> items, List<RecordResult> results) {
    Map<Integer, RecordResult> out = new HashMap<>();
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i).getErrorCode() != ErrorCode.NONE) {
        out.putIfAbsent(items.get(i), results.get(i));
      }
    }
    return out;
  }

  /** A refused quota record fails the entry it belongs to. */
  private static void finishClientQuotas(
      dev.spool.protocol.message.AlterClientQuotasResponse.Builder b,
      Map<Integer, RecordResult> errors) {
    failItems(
        b.getResultsCount(),
        errors,
        i -> b.getResults(i).getErrorCode(),
        (r, i) ->
            b.setResults(
                i,
                b.getResults(i).toBuilder()
                    .setErrorCode(r.getErrorCode())
                    .setErrorMessage(r.getErrorMessage())));
  }

  /** A refused ACL record fails the creation or the deletion filter it belongs to. */
  private static void finishAcls(ControllerReply.Builder reply, Map<Integer, RecordResult> errors) {
    if (reply.hasCreateAcls()) {
      var b = reply.getCreateAclsBuilder();
      failItems(
          b.getResultsCount(),
          errors,
          i -> b.getResults(i).getErrorCode(),
          (r, i) ->
              b.setResults(
                  i,
                  b.getResults(i).toBuilder()
                      .setErrorCode(r.getErrorCode())
                      .setErrorMessage(r.getErrorMessage())));
    } else {
      var b = reply.getDeleteAclsBuilder();
      failItems(
          b.getResultsCount(),
          errors,
          i -> b.getResults(i).getErrorCode(),
          (r, i) ->
              b.setResults(
                  i,
                  b.getResults(i).toBuilder()
                      .setErrorCode(r.getErrorCode())
                      .setErrorMessage(r.getErrorMessage())));
    }
  }
}
