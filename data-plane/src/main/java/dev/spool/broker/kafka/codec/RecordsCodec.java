package dev.spool.broker.kafka.codec;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.DeleteRecordsRequest;
import dev.spool.protocol.message.DeleteRecordsResponse;
import dev.spool.protocol.message.DescribeLogsRequest;
import dev.spool.protocol.message.DescribeLogsResponse;
import dev.spool.protocol.message.DescribeProducersRequest;
import dev.spool.protocol.message.DescribeProducersResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteRecords, DescribeLogDirs and DescribeProducers between Kafka and Spool.
 *
 * <p>DeleteRecords: Kafka's broker keys a request by partition, so a partition named twice is
 * served once with the offset named last and answered once; the translation does the same before
 * Spool sees the request (Spool's own protocol refuses such a request instead, since its answers
 * follow the request's order).
 *
 * <p>DescribeLogDirs: a Spool broker has one data directory, answered as Kafka's single log dir
 * with its file system's total and usable bytes (v4+). Each partition's offset lag is Kafka's for a
 * current (not future) replica, max(high watermark - log end offset, 0); no replica is ever a
 * future one, and no directory is cordoned (v5).
 *
 * <p>DescribeProducers: Spool keeps no transactions, so each producer's coordinator epoch and
 * current transaction start offset are -1, as Kafka answers for an idempotent producer.
 *
 * <p>Threads: stateless; any thread.
 */
public final class RecordsCodec {
  private RecordsCodec() {}

  // ---------------------------------------------------------------- DeleteRecords

  public static DeleteRecordsRequest deleteRecordsToSpool(KafkaRequest r) {
    DeleteRecordsRequestData req = r.body();
    Map<String, Map<Integer, Long>> byTopic = new LinkedHashMap<>();
    for (DeleteRecordsRequestData.DeleteRecordsTopic t : req.topics()) {
      Map<Integer, Long> parts = byTopic.computeIfAbsent(t.name(), n -> new LinkedHashMap<>());
      for (DeleteRecordsRequestData.DeleteRecordsPartition p : t.partitions()) {
        parts.put(p.partitionIndex(), p.offset());
      }
    }
    DeleteRecordsRequest.Builder b =
        DeleteRecordsRequest.newBuilder().setTimeoutMs(req.timeoutMs());
    byTopic.forEach(
        (name, parts) -> {
          DeleteRecordsRequest.Topic.Builder tb =
              DeleteRecordsRequest.Topic.newBuilder().setName(name);
          parts.forEach(
              (index, offset) ->
                  tb.addPartitions(
                      DeleteRecordsRequest.Partition.newBuilder()
                          .setPartition(index)
                          .setOffset(offset)));
          b.addTopics(tb);
        });
    return b.build();
  }

  public static KafkaResponse deleteRecordsToKafka(KafkaRequest r, DeleteRecordsResponse resp) {
    DeleteRecordsResponseData.DeleteRecordsTopicResultCollection topics =
        new DeleteRecordsResponseData.DeleteRecordsTopicResultCollection();
    for (DeleteRecordsResponse.Topic t : resp.getTopicsList()) {
      DeleteRecordsResponseData.DeleteRecordsPartitionResultCollection parts =
          new DeleteRecordsResponseData.DeleteRecordsPartitionResultCollection();
      for (DeleteRecordsResponse.Partition p : t.getPartitionsList()) {
        parts.add(
            new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                .setPartitionIndex(p.getPartition())
                .setLowWatermark(p.getLowWatermark())
                .setErrorCode(KafkaErrors.code(p.getErrorCode())));
      }
      topics.add(
          new DeleteRecordsResponseData.DeleteRecordsTopicResult()
              .setName(t.getName())
              .setPartitions(parts));
    }
    return r.respond(new DeleteRecordsResponseData().setThrottleTimeMs(0).setTopics(topics));
  }

  // ---------------------------------------------------------------- DescribeLogDirs

  /** Spool's DescribeLogs for the topics asked (all when Kafka's list is null). */
  public static DescribeLogsRequest describeLogDirsToSpool(KafkaRequest r) {
    DescribeLogDirsRequestData req = r.body();
    DescribeLogsRequest.Builder b = DescribeLogsRequest.newBuilder();
    if (req.topics() != null) {
      for (DescribeLogDirsRequestData.DescribableLogDirTopic t : req.topics()) {
        b.addTopics(t.topic());
      }
    }
    return b.build();
  }

  /**
   * Kafka's answer: the one directory, with the partitions asked (every one when the list was null;
   * an empty list asks for none, as on Kafka).
   */
  public static KafkaResponse describeLogDirsToKafka(KafkaRequest r, DescribeLogsResponse resp) {
    DescribeLogDirsRequestData req = r.body();
    Set<String> asked = null;
    if (req.topics() != null) {
      asked = new HashSet<>();
      for (DescribeLogDirsRequestData.DescribableLogDirTopic t : req.topics()) {
        for (int p : t.partitions()) {
          asked.add(t.topic() + "-" + p);
        }
      }
    }
    Map<String, DescribeLogDirsResponseData.DescribeLogDirsTopic> topics = new LinkedHashMap<>();
    for (DescribeLogsResponse.ReplicaLog l : resp.getPartitionsList()) {
      if (asked != null && !asked.contains(l.getTopic() + "-" + l.getPartition())) {
        continue;
      }
      topics
          .computeIfAbsent(
              l.getTopic(), n -> new DescribeLogDirsResponseData.DescribeLogDirsTopic().setName(n))
          .partitions()
          .add(
              new DescribeLogDirsResponseData.DescribeLogDirsPartition()
                  .setPartitionIndex(l.getPartition())
                  .setPartitionSize(l.getSizeBytes())
                  .setOffsetLag(Math.max(l.getHighWatermark() - l.getLogEndOffset(), 0))
                  .setIsFutureKey(false));
    }
    DescribeLogDirsResponseData.DescribeLogDirsResult dir =
        new DescribeLogDirsResponseData.DescribeLogDirsResult()
            .setErrorCode(Errors.NONE.code())
            .setLogDir(resp.getLogDir())
            .setTopics(new ArrayList<>(topics.values()));
    if (r.version() >= 4) {
      dir.setTotalBytes(resp.getTotalBytes()).setUsableBytes(resp.getUsableBytes());
    }
    if (resp.getErrorCode() != ErrorCode.NONE) {
      dir.setErrorCode(KafkaErrors.code(resp.getErrorCode())).setTopics(new ArrayList<>());
    }
    return r.respond(
        new DescribeLogDirsResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(KafkaErrors.code(resp.getErrorCode()))
            .setResults(List.of(dir)));
  }

  // ---------------------------------------------------------------- DescribeProducers

  public static DescribeProducersRequest describeProducersToSpool(KafkaRequest r) {
    DescribeProducersRequestData req = r.body();
    DescribeProducersRequest.Builder b = DescribeProducersRequest.newBuilder();
    for (DescribeProducersRequestData.TopicRequest t : req.topics()) {
      b.addTopics(
          DescribeProducersRequest.Topic.newBuilder()
              .setName(t.name())
              .addAllPartitions(t.partitionIndexes()));
    }
    return b.build();
  }

  public static KafkaResponse describeProducersToKafka(
      KafkaRequest r, DescribeProducersResponse resp) {
    List<DescribeProducersResponseData.TopicResponse> topics = new ArrayList<>();
    for (DescribeProducersResponse.Topic t : resp.getTopicsList()) {
      List<DescribeProducersResponseData.PartitionResponse> parts = new ArrayList<>();
      for (DescribeProducersResponse.Partition p : t.getPartitionsList()) {
        List<DescribeProducersResponseData.ProducerState> producers = new ArrayList<>();
        for (DescribeProducersResponse.Producer s : p.getProducersList()) {
          producers.add(
              new DescribeProducersResponseData.ProducerState()
                  .setProducerId(s.getProducerId())
                  .setProducerEpoch(s.getProducerEpoch())
                  .setLastSequence(s.getLastSequence())
                  .setLastTimestamp(s.getLastTimestampMs())
                  .setCoordinatorEpoch(-1)
                  .setCurrentTxnStartOffset(-1));
        }
        parts.add(
            new DescribeProducersResponseData.PartitionResponse()
                .setPartitionIndex(p.getPartition())
                .setErrorCode(KafkaErrors.code(p.getErrorCode()))
                .setErrorMessage(KafkaErrors.message(p.getErrorMessage()))
                .setActiveProducers(producers));
      }
      topics.add(
          new DescribeProducersResponseData.TopicResponse()
              .setName(t.getName())
              .setPartitions(parts));
    }
    return r.respond(new DescribeProducersResponseData().setThrottleTimeMs(0).setTopics(topics));
  }
}
