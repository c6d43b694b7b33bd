package dev.spool.broker.request;

import static dev.spool.broker.quota.ClientQuotaManager.Kind.PRODUCE;

import dev.spool.broker.metrics.BrokerMetrics;
import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RateLimitedLog;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.broker.replication.ProduceResult;
import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.runtime.OffsetsTopic;
import dev.spool.protocol.message.ProduceRequest;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.TopicImage;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produce. The body must declare exactly the record data the frame carries (else INVALID_REQUEST
 * and the connection is closed: the stream cannot be trusted). Per partition the batches are
 * appended on the partition's owner thread from the received buffer (no copy): leadership
 * (NOT_LEADER_OR_FOLLOWER with a LeaderHint), leader-epoch fencing, acks, min ISR and the log's
 * validation (CORRUPT_MESSAGE, MESSAGE_TOO_LARGE, INVALID_RECORD, sequence and epoch errors)
 * decide; a refused partition leaves its log untouched. acks=all answers when the high watermark
 * passes the batch or the timeout ends; acks=0 sends no response (after the appends, because the
 * record data lives in the request buffer until then). Netty thread.
 */
public final class ProduceHandler implements RequestHandler {
  private static final Logger log = LoggerFactory.getLogger(ProduceHandler.class);
  // Malformed produce requests come from clients: rate-limited so they cannot flood the log.
  private static final RateLimitedLog malformed = new RateLimitedLog(log);

  /** The metrics label of this API (both listeners). */
  private static final String API_LABEL = "Produce";

  private final BrokerContext ctx;

  public ProduceHandler(BrokerContext ctx) {
    this.ctx = ctx;
  }

  private record Part(String topic, int partition, CompletableFuture<ProduceResult> result) {}

  /**
   * One partition's record batches: a view into the received request, valid until the answer is
   * written.
   *
   * @param leaderEpoch the client's known leader epoch; -1 = do not check
   */
  public record PartitionRecords(
      String topic, int partition, int leaderEpoch, ByteBuffer records) {}

  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    ProduceRequest req = request.frame().parseBody(ProduceRequest.parser());
    ByteBuf data = request.frame().recordData();
    long declared = 0;
    for (ProduceRequest.TopicData t : req.getTopicsList()) {
      for (ProduceRequest.PartitionData p : t.getPartitionsList()) {
        if (p.getRecordsSize() < 0) {
          return invalid(
              request,
              "partition "
                  + t.getName()
                  + "-"
                  + p.getPartition()
                  + " declares a negative records_size "
                  + p.getRecordsSize());
        }
        declared += p.getRecordsSize();
      }
    }
    if (declared != data.readableBytes()) {
      return invalid(
          request,
          "the body declares "
              + declared
              + " bytes of record data but the "
              + "frame carries "
              + data.readableBytes());
    }
    List<PartitionRecords> parts = new ArrayList<>();
    int position = data.readerIndex();
    for (ProduceRequest.TopicData t : req.getTopicsList()) {
      for (ProduceRequest.PartitionData p : t.getPartitionsList()) {
        ByteBuf slice = data.slice(position, p.getRecordsSize());
        position += p.getRecordsSize();
        parts.add(
            new PartitionRecords(
                t.getName(), p.getPartition(), p.getLeaderEpoch(), nioView(slice)));
      }
    }
    int acks = req.getAcks();
    long requestBytes = request.frameBuffer().readableBytes();
    String clientId = request.header().getClientId();
    if (acks == 0) {
      // Nothing is sent back, so no answer is built: acks=0 is the cheapest produce there is.
      return appendAll(acks, req.getTimeoutMs(), parts, request.caller())
          .thenApply(
              done ->
                  BrokerResponse.none()
                      .throttled(
                          ctx.quotaThrottleMs(PRODUCE, request.caller(), clientId, requestBytes)));
    }
    return produce(acks, req.getTimeoutMs(), parts, request.caller())
        .thenApply(
            resp ->
                BrokerResponse.of(resp)
                    .throttled(
                        ctx.quotaThrottleMs(PRODUCE, request.caller(), clientId, requestBytes)));
  }

  /**
   * Appends every partition's batches and answers per partition, in the order given; with acks=0
   * the answer is still built (the Kafka listener sends nothing but closes the connection when a
   * partition failed, as Kafka does). {@code timeoutMs} &lt;= 0 means the broker's default. Both
   * listeners produce through here.
   */
  public CompletableFuture<ProduceResponse> produce(
      int acks, int timeoutMs, List<PartitionRecords> partitions, Caller caller) {
    return appendAll(acks, timeoutMs, partitions, caller).thenApply(this::response);
  }

  /** Appends every partition's batches; completes when every partition has its result. */
  private CompletableFuture<List<Part>> appendAll(
      int acks, int timeoutMs, List<PartitionRecords> partitions, Caller caller) {
    long waitMs = timeoutMs > 0 ? timeoutMs : ctx.produceTimeoutMs();
    MetadataImage image = ctx.image();
    List<Part> parts = new ArrayList<>(partitions.size());
    // WRITE on each topic, asked once per topic of the request (docs/security.md#acls).
    Map<String, Boolean> mayWrite = new HashMap<>();
    for (PartitionRecords p : partitions) {
      boolean allowed =
          mayWrite.computeIfAbsent(p.topic(), t -> Authz.topic(ctx, caller, AclOperation.WRITE, t));
      parts.add(
          new Part(
              p.topic(),
              p.partition(),
              allowed
                  ? append(image, p, acks, waitMs)
                  : done(Authz.TOPIC, Authz.topicRefusal(caller, AclOperation.WRITE, p.topic()))));
    }
    CompletableFuture<?>[] all = parts.stream().map(Part::result).toArray(CompletableFuture[]::new);
    return CompletableFuture.allOf(all).thenApply(v -> count(parts));
  }

  /** Bytes and records in per topic, and each partition's error, for the broker's metrics. */
  private List<Part> count(List<Part> parts) {
    BrokerMetrics m = ctx.metrics();
    if (!m.enabled()) {
      return parts;
    }
    for (Part part : parts) {
      ProduceResult r = part.result().join();
      if (r.error() == ErrorCode.NONE) {
        m.produced(part.topic(), r.appendedBytes(), r.appendedRecords());
      } else {
        m.error(API_LABEL, r.error().name());
      }
    }
    return parts;
  }

  private CompletableFuture<ProduceResult> append(
      MetadataImage image, PartitionRecords p, int acks, long timeoutMs) {
    if (acks != -1 && acks != 0 && acks != 1) {
      return done(ErrorCode.INVALID_REQUEST, "acks must be -1 (all), 0 or 1, not " + acks);
    }
    TopicImage t = image.topic(p.topic());
    TopicPartition tp = BrokerContext.tpOrNull(p.topic(), p.partition());
    if (t == null || tp == null || t.partition(p.partition()) == null) {
      return done(
          ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          "partition " + p.topic() + "-" + p.partition() + " does not exist");
    }
    if (!p.records().hasRemaining()) {
      return done(ErrorCode.INVALID_RECORD, "no record batches for " + tp);
    }
    if (OffsetsTopic.isInternal(p.topic())) {
      // Only the group coordinator writes there: one foreign record would be replayed into groups.
      return done(
          ErrorCode.INVALID_TOPIC, p.topic() + " is internal: clients cannot produce to it");
    }
    return ctx.replicas().appendRecords(tp, p.records(), acks, p.leaderEpoch(), timeoutMs);
  }

  /**
   * The readable bytes of {@code slice} as one buffer: a view when they are contiguous, else a
   * copy. The Kafka listener's decoder reads its frames through this too.
   */
  public static ByteBuffer nioView(ByteBuf slice) {
    if (slice.nioBufferCount() == 1) {
      return slice.nioBuffer();
    }
    ByteBuffer records = ByteBuffer.allocate(slice.readableBytes());
    slice.getBytes(slice.readerIndex(), records);
    return records.flip();
  }

  private static CompletableFuture<ProduceResult> done(ErrorCode code, String message) {
    return CompletableFuture.completedFuture(ProduceResult.error(code, message));
  }

  private ProduceResponse response(List<Part> parts) {
    ProduceResponse.Builder b = ProduceResponse.newBuilder();
    ProduceResponse.TopicResponse.Builder current = null;
    for (Part part : parts) {
      if (current == null || !current.getName().equals(part.topic())) {
        if (current != null) {
          b.addTopics(current);
        }
        current = ProduceResponse.TopicResponse.newBuilder().setName(part.topic());
      }
      ProduceResult r = part.result().join();
      ProduceResponse.PartitionResponse.Builder pr =
          ProduceResponse.PartitionResponse.newBuilder()
              .setPartition(part.partition())
              .setErrorCode(r.error())
              .setErrorMessage(r.message())
              .setBaseOffset(r.baseOffset())
              .setLogAppendTimeMs(r.logAppendTimeMs())
              .setLogStartOffset(r.logStartOffset());
      if (r.error() == ErrorCode.NOT_LEADER_OR_FOLLOWER
          || r.error() == ErrorCode.FENCED_LEADER_EPOCH) {
        TopicPartition tp = BrokerContext.tpOrNull(part.topic(), part.partition());
        if (tp != null) {
          pr.setCurrentLeader(ctx.hint(tp, r.hint()));
        }
      }
      if (r.error() == ErrorCode.CORRUPT_MESSAGE
          || r.error() == ErrorCode.INVALID_RECORD
          || r.error() == ErrorCode.MESSAGE_TOO_LARGE) {
        log.debug(
            "[node={}] produce to {}-{} refused: {}",
            ctx.brokerId(),
            part.topic(),
            part.partition(),
            r.message());
      }
      current.addPartitions(pr);
    }
    if (current != null) {
      b.addTopics(current);
    }
    return b.build();
  }

  private CompletableFuture<BrokerResponse> invalid(RequestContext request, String why) {
    malformed.warn(
        "[node={}] malformed produce request from {}: {}; closing the connection",
        ctx.brokerId(),
        request.connectionId(),
        why);
    return CompletableFuture.completedFuture(
        BrokerResponse.requestError(ErrorCode.INVALID_REQUEST, why, true));
  }
}
