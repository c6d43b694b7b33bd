package dev.spool.broker.kafka.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.kafka.KafkaWire;
import dev.spool.protocol.message.ProduceResponse;
import dev.spool.quorum.image.MetadataImage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceResponse.PartitionResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What Kafka's broker refuses before appending, refused the same way by the Kafka listener. */
@Tag("unit")
class ProduceCodecTest {
  private final KafkaRequestDecoder decoder =
      new KafkaRequestDecoder(java.util.EnumSet.allOf(KafkaApi.class));

  private static MemoryRecords batch(String value) {
    return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(value.getBytes()));
  }

  /** {@code b} as one buffer (the records of one partition). */
  private static MemoryRecords concat(MemoryRecords... batches) {
    int size = 0;
    for (MemoryRecords m : batches) {
      size += m.sizeInBytes();
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    for (MemoryRecords m : batches) {
      out.put(m.buffer().duplicate());
    }
    return MemoryRecords.readableRecords(out.flip());
  }

  private static MemoryRecords withAttributes(MemoryRecords m, int attributes) {
    ByteBuffer b = ByteBuffer.allocate(m.sizeInBytes()).put(m.buffer().duplicate()).flip();
    b.putShort(21, (short) attributes);
    return MemoryRecords.readableRecords(b);
  }

  private KafkaRequest produce(short version, String transactionalId, MemoryRecords... parts) {
    ProduceRequestData.TopicProduceData t =
        new ProduceRequestData.TopicProduceData().setName("orders");
    for (int i = 0; i < parts.length; i++) {
      t.partitionData()
          .add(new ProduceRequestData.PartitionProduceData().setIndex(i).setRecords(parts[i]));
    }
    ProduceRequestData.TopicProduceDataCollection topics =
        new ProduceRequestData.TopicProduceDataCollection();
    topics.add(t);
    ProduceRequestData d =
        new ProduceRequestData()
            .setAcks((short) -1)
            .setTimeoutMs(1000)
            .setTransactionalId(transactionalId)
            .setTopicData(topics);
    ByteBuf frame = Unpooled.directBuffer().writeBytes(KafkaWire.request(d, version, 1));
    return decoder.decode(frame);
  }

  private static List<PartitionResponse> answer(KafkaRequest r, ProduceCodec.Call call) {
    var parsed =
        (org.apache.kafka.common.requests.ProduceResponse)
            KafkaWire.parse(
                ProduceCodec.toKafka(
                    r, call, ProduceResponse.getDefaultInstance(), MetadataImage.EMPTY),
                new org.apache.kafka.common.requests.RequestHeader(
                    org.apache.kafka.common.protocol.ApiKeys.PRODUCE,
                    r.version(),
                    KafkaWire.CLIENT_ID,
                    1));
    return parsed.data().responses().iterator().next().partitionResponses().stream()
        .map(p -> new PartitionResponse(Errors.forCode(p.errorCode())))
        .toList();
  }

  @Test
  void shouldPassOneBatchOnAsAViewIntoTheRequestFrame() {
    KafkaRequest r = produce((short) 9, null, batch("a"));
    ProduceCodec.Call call = ProduceCodec.toSpool(r, MetadataImage.EMPTY);
    assertEquals(1, call.append().size());
    assertEquals("orders", call.append().get(0).topic());
    assertEquals(-1, call.append().get(0).leaderEpoch());
    assertTrue(call.append().get(0).records().isDirect(), "a view of the direct frame, not a copy");
    assertEquals(batch("a").sizeInBytes(), call.append().get(0).records().remaining());
  }

  @Test
  void shouldRefuseEachPartitionAsKafkasBrokerDoesBeforeAppending() {
    MemoryRecords ok = batch("ok");
    KafkaRequest r =
        produce(
            (short) 6,
            null,
            concat(batch("a"), batch("b")), // two batches
            MemoryRecords.withRecords((byte) 1, Compression.NONE, new SimpleRecord("x".getBytes())),
            withAttributes(ok, 4), // zstd before v7
            withAttributes(ok, 0x20), // control batch
            withAttributes(ok, 0x10), // transactional
            MemoryRecords.EMPTY,
            ok);
    ProduceCodec.Call call = ProduceCodec.toSpool(r, MetadataImage.EMPTY);
    assertEquals(1, call.append().size(), "only the last partition reaches the log");
    assertEquals(6, call.append().get(0).partition());
    // Spool's answer for the one appended partition, then every partition in request order.
    ProduceResponse spool =
        ProduceResponse.newBuilder()
            .addTopics(
                ProduceResponse.TopicResponse.newBuilder()
                    .setName("orders")
                    .addPartitions(
                        ProduceResponse.PartitionResponse.newBuilder()
                            .setPartition(6)
                            .setBaseOffset(41)))
            .build();
    var parsed =
        (org.apache.kafka.common.requests.ProduceResponse)
            KafkaWire.parse(
                ProduceCodec.toKafka(r, call, spool, MetadataImage.EMPTY),
                new org.apache.kafka.common.requests.RequestHeader(
                    org.apache.kafka.common.protocol.ApiKeys.PRODUCE,
                    (short) 6,
                    KafkaWire.CLIENT_ID,
                    1));
    var partitions = parsed.data().responses().iterator().next().partitionResponses();
    assertEquals(
        List.of(
            Errors.INVALID_RECORD,
            Errors.INVALID_RECORD,
            Errors.UNSUPPORTED_COMPRESSION_TYPE,
            Errors.INVALID_RECORD,
            Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
            Errors.INVALID_RECORD,
            Errors.NONE),
        partitions.stream().map(p -> Errors.forCode(p.errorCode())).toList());
    assertEquals(41, partitions.get(6).baseOffset());
    assertEquals(-1, partitions.get(0).baseOffset());
  }

  @Test
  void shouldRefuseTransactionalProducersAndUnknownTopicIds() {
    KafkaRequest tx = produce((short) 9, "tx-1", batch("a"));
    ProduceCodec.Call call = ProduceCodec.toSpool(tx, MetadataImage.EMPTY);
    assertTrue(call.append().isEmpty());
    assertEquals(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, answer(tx, call).get(0).error);

    ProduceRequestData.TopicProduceDataCollection topics =
        new ProduceRequestData.TopicProduceDataCollection();
    ProduceRequestData.TopicProduceData t =
        new ProduceRequestData.TopicProduceData().setTopicId(Uuid.randomUuid());
    t.partitionData()
        .add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(batch("a")));
    topics.add(t);
    KafkaRequest v13 =
        decoder.decode(
            Unpooled.wrappedBuffer(
                KafkaWire.request(
                    new ProduceRequestData().setAcks((short) 1).setTopicData(topics),
                    (short) 13,
                    1)));
    ProduceCodec.Call c13 = ProduceCodec.toSpool(v13, MetadataImage.EMPTY);
    assertTrue(c13.append().isEmpty());
    assertEquals(Errors.UNKNOWN_TOPIC_ID, answer(v13, c13).get(0).error);
  }
}
