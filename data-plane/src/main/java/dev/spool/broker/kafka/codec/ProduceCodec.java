package dev.spool.broker.kafka.codec;

import dev.spool.broker.request.ProduceHandler.PartitionRecords;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.LeaderHint;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.TopicImage;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Produce between Kafka and Spool. The record batches are passed on as they arrived (views into the
 * request frame, no copy) to Spool's produce path, which validates and appends them. What Kafka's
 * broker refuses before that, per partition, is refused here the same way:
 *
 * <ul>
 *   <li>a partition without exactly one batch of magic 2 (Produce v3+): INVALID_RECORD;
 *   <li>zstd before Produce v7: UNSUPPORTED_COMPRESSION_TYPE;
 *   <li>a control batch: INVALID_RECORD (only brokers write them);
 *   <li>a transactional id or a transactional batch: TRANSACTIONAL_ID_AUTHORIZATION_FAILED (no
 *       transactions; see {@link KafkaRequestDecoder});
 *   <li>an unknown topic id (Produce v13): UNKNOWN_TOPIC_ID.
 * </ul>
 *
 * Kafka's request carries no leader epoch, so none is checked. Leader hints (KIP-951, v10+) name
 * the leader's Kafka endpoint.
 *
 * <pre>
 * RecordBatch v2 fields read here (offsets from the batch start, big-endian):
 *   8  int32 batchLength   bytes after this field: a second batch follows when 12 + it < size
 *   16 int8  magic
 *   21 int16 attributes    bits 0-2 codec (4 = zstd), bit 4 transactional, bit 5 control
 * </pre>
 *
 * <p>Threads: stateless; any thread.
 */
public final class ProduceCodec {
  private ProduceCodec() {}

  private static final int ZSTD = 4;

  /** One partition of the request: refused here ({@code error} set) or passed to Spool. */
  private record Slot(String name, Uuid topicId, int partition, Errors error, String message) {}

  /** A translated request: what to append, and how to answer each partition in request order. */
  public static final class Call {
    private final int acks;
    private final int timeoutMs;
    private final List<Slot> slots;
    private final List<PartitionRecords> append;

    private Call(int acks, int timeoutMs, List<Slot> slots, List<PartitionRecords> append) {
      this.acks = acks;
      this.timeoutMs = timeoutMs;
      this.slots = slots;
      this.append = append;
    }

    public int acks() {
      return acks;
    }

    public int timeoutMs() {
      return timeoutMs;
    }

    /** The partitions Spool's produce path appends, in request order. */
    public List<PartitionRecords> append() {
      return append;
    }
  }

  public static Call toSpool(KafkaRequest r, MetadataImage image) {
    ProduceRequestData req = r.body();
    boolean transactional = req.transactionalId() != null;
    List<Slot> slots = new ArrayList<>();
    List<PartitionRecords> append = new ArrayList<>();
    for (ProduceRequestData.TopicProduceData t : req.topicData()) {
      String name = t.name();
      if (r.version() >= 13) {
        TopicImage ti = TopicIds.topic(image, t.topicId());
        name = ti == null ? null : ti.name();
      }
      for (ProduceRequestData.PartitionProduceData p : t.partitionData()) {
        String refusal = null;
        Errors error = null;
        if (name == null) {
          error = Errors.UNKNOWN_TOPIC_ID;
          refusal = "topic id " + t.topicId() + " does not exist";
        } else if (transactional) {
          error = Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
          refusal = "Spool does not support transactions";
        } else if (!(p.records() instanceof MemoryRecords m)) {
          error = Errors.INVALID_RECORD;
          refusal = "no record data for partition " + p.index();
        } else {
          ByteBuffer records = m.buffer();
          refusal = refusal(records, r.version());
          if (refusal != null) {
            error = refusalError(records);
          } else {
            append.add(new PartitionRecords(name, p.index(), -1, records));
          }
        }
        slots.add(new Slot(t.name(), t.topicId(), p.index(), error, refusal));
      }
    }
    return new Call(req.acks(), req.timeoutMs(), slots, append);
  }

  /** Why Kafka's broker refuses these batches before appending, or null. */
  static String refusal(ByteBuffer b, short version) {
    int p = b.position();
    int n = b.remaining();
    if (n == 0) {
      return "Produce v" + version + " needs a record batch per partition";
    }
    if (n <= 16 || b.get(p + 16) != 2) {
      return "Produce v" + version + " only takes record batches with magic 2";
    }
    if (n >= 23) {
      int attributes = b.getShort(p + 21);
      if (version < 7 && (attributes & 0x7) == ZSTD) {
        return "Produce v" + version + " does not allow zstd (v7 and up do)";
      }
      if ((attributes & 0x20) != 0) {
        return "clients may not write control batches";
      }
      if ((attributes & 0x10) != 0) {
        return "Spool does not support transactions";
      }
    }
    int batchLength = b.getInt(p + 8);
    if (batchLength >= 0 && 12L + batchLength < n) {
      return "Produce v" + version + " takes exactly one record batch per partition";
    }
    return null;
  }

  private static Errors refusalError(ByteBuffer b) {
    int p = b.position();
    if (b.remaining() >= 23 && b.get(p + 16) == 2) {
      int attributes = b.getShort(p + 21);
      if ((attributes & 0x7) == ZSTD && (attributes & 0x30) == 0) {
        return Errors.UNSUPPORTED_COMPRESSION_TYPE;
      }
      if ((attributes & 0x30) == 0x10) {
        return Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
      }
    }
    return Errors.INVALID_RECORD;
  }

  /**
   * Whether any partition failed: with acks=0 Kafka's broker then closes the connection, the only
   * signal such a producer gets (it refreshes its metadata and reconnects).
   */
  public static boolean anyError(Call call, ProduceResponse resp) {
    return call.slots.stream().anyMatch(s -> s.error() != null)
        || resp.getTopicsList().stream()
            .flatMap(t -> t.getPartitionsList().stream())
            .anyMatch(p -> p.getErrorCode() != ErrorCode.NONE);
  }

  /** Kafka's answer: each partition in request order, refused ones with their error. */
  public static KafkaResponse toKafka(
      KafkaRequest r, Call call, ProduceResponse resp, MetadataImage image) {
    Iterator<ProduceResponse.PartitionResponse> answers =
        resp.getTopicsList().stream().flatMap(t -> t.getPartitionsList().stream()).iterator();
    ProduceResponseData.TopicProduceResponseCollection topics =
        new ProduceResponseData.TopicProduceResponseCollection();
    LeaderEndpoints leaders = new LeaderEndpoints(image);
    ProduceResponseData.TopicProduceResponse current = null;
    for (Slot s : call.slots) {
      if (current == null
          || !java.util.Objects.equals(current.name(), s.name())
          || !current.topicId().equals(s.topicId())) {
        current =
            new ProduceResponseData.TopicProduceResponse()
                .setName(s.name())
                .setTopicId(s.topicId());
        topics.add(current);
      }
      ProduceResponseData.PartitionProduceResponse pr =
          new ProduceResponseData.PartitionProduceResponse().setIndex(s.partition());
      if (s.error() != null) {
        pr.setErrorCode(s.error().code()).setErrorMessage(s.message()).setBaseOffset(-1);
      } else {
        partition(pr, answers.next(), r.version() >= 10 ? leaders : null);
      }
      current.partitionResponses().add(pr);
    }
    return r.respond(
        new ProduceResponseData()
            .setResponses(topics)
            .setThrottleTimeMs(0)
            .setNodeEndpoints(leaders.produceEndpoints()));
  }

  /**
   * One partition's answer; {@code leaders} is null below v10, which has no leader hints (KIP-951):
   * writing one to an older version fails the whole answer (found by the fuzzer: Produce v9 to a
   * follower).
   */
  private static void partition(
      ProduceResponseData.PartitionProduceResponse pr,
      ProduceResponse.PartitionResponse a,
      LeaderEndpoints leaders) {
    pr.setErrorCode(KafkaErrors.code(a.getErrorCode()))
        .setErrorMessage(KafkaErrors.message(a.getErrorMessage()))
        .setBaseOffset(a.getErrorCode() == ErrorCode.NONE ? a.getBaseOffset() : -1)
        .setLogAppendTimeMs(a.getErrorCode() == ErrorCode.NONE ? a.getLogAppendTimeMs() : -1)
        .setLogStartOffset(a.getErrorCode() == ErrorCode.NONE ? a.getLogStartOffset() : -1);
    for (int index : a.getRecordErrorsList()) {
      pr.recordErrors()
          .add(new ProduceResponseData.BatchIndexAndErrorMessage().setBatchIndex(index));
    }
    if (a.hasCurrentLeader() && leaders != null) {
      LeaderHint h = a.getCurrentLeader();
      pr.setCurrentLeader(
          new ProduceResponseData.LeaderIdAndEpoch()
              .setLeaderId(h.getLeaderId())
              .setLeaderEpoch(h.getLeaderEpoch()));
      leaders.add(h.getLeaderId());
    }
  }
}
