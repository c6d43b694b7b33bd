package dev.spool.broker.kafka.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.spool.broker.kafka.KafkaWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fetch answers leave as Kafka's broker sends them: the record bytes as file regions (sendfile),
 * everything around them from one buffer, byte for byte what Kafka's own serialization writes, and
 * readable by Kafka's client.
 */
@Tag("unit")
class KafkaResponseTest {
  @TempDir Path dir;

  private static MemoryRecords batch(int n) {
    SimpleRecord[] records = new SimpleRecord[n];
    for (int i = 0; i < n; i++) {
      records[i] = new SimpleRecord(("key-" + i).getBytes(), ("value-" + i).getBytes());
    }
    return MemoryRecords.withRecords(Compression.NONE, records);
  }

  private static FetchResponseData fetch(BaseRecords p0, BaseRecords p1) {
    Uuid id = new Uuid(7, 9);
    List<FetchResponseData.PartitionData> parts = new ArrayList<>();
    parts.add(
        new FetchResponseData.PartitionData()
            .setPartitionIndex(0)
            .setHighWatermark(3)
            .setLastStableOffset(3)
            .setLogStartOffset(0)
            .setRecords(p0));
    parts.add(
        new FetchResponseData.PartitionData()
            .setPartitionIndex(1)
            .setHighWatermark(1)
            .setLastStableOffset(1)
            .setLogStartOffset(0)
            .setRecords(p1));
    return new FetchResponseData()
        .setSessionId(0)
        .setResponses(
            List.of(
                new FetchResponseData.FetchableTopicResponse()
                    .setTopic("orders")
                    .setTopicId(id)
                    .setPartitions(parts)));
  }

  /** Kafka's own serialization of a response: size field, header, body, records in line. */
  private static byte[] kafkaBytes(FetchResponseData body, short version, int correlationId) {
    short hv = ApiKeys.FETCH.responseHeaderVersion(version);
    ResponseHeaderData h = new ResponseHeaderData().setCorrelationId(correlationId);
    ObjectSerializationCache cache = new ObjectSerializationCache();
    MessageSizeAccumulator size = new MessageSizeAccumulator();
    h.addSize(size, cache, hv);
    body.addSize(size, cache, version);
    ByteBuffer out = ByteBuffer.allocate(4 + size.totalSize());
    ByteBufferAccessor w = new ByteBufferAccessor(out);
    w.writeInt(size.totalSize());
    h.write(w, cache, hv);
    body.write(w, cache, version);
    return out.array();
  }

  @Test
  void shouldWriteFetchRecordsAsFileRegionsByteForByteAsKafka() throws Exception {
    MemoryRecords a = batch(3);
    MemoryRecords b = batch(1);
    Path segment = dir.resolve("00000000000000000000.log");
    ByteBuffer file = ByteBuffer.allocate(a.sizeInBytes() + b.sizeInBytes());
    file.put(a.buffer().duplicate()).put(b.buffer().duplicate());
    Files.write(segment, file.array());
    for (short v : new short[] {4, 11, 12, 13, 16, 18}) {
      RegionRecords r0 =
          new RegionRecords(
              new DefaultFileRegion(segment.toFile(), 0, a.sizeInBytes()), a.sizeInBytes());
      RegionRecords r1 =
          new RegionRecords(
              new DefaultFileRegion(segment.toFile(), a.sizeInBytes(), b.sizeInBytes()),
              b.sizeInBytes());
      KafkaResponse answer =
          new KafkaResponse(
              77, fetch(r0, r1), v, ApiKeys.FETCH.responseHeaderVersion(v), List.of(r0, r1), false);
      List<Object> parts = answer.encode(ByteBufAllocator.DEFAULT);
      assertInstanceOf(ByteBuf.class, parts.get(0), "v" + v);
      assertEquals(a.sizeInBytes(), ((FileRegion) parts.get(1)).count(), "v" + v);
      assertInstanceOf(ByteBuf.class, parts.get(2), "v" + v);
      assertEquals(b.sizeInBytes(), ((FileRegion) parts.get(3)).count(), "v" + v);
      byte[] ours = KafkaWire.bytes(parts);
      assertArrayEquals(kafkaBytes(fetch(a, b), v, 77), ours, "v" + v);

      FetchResponse parsed = KafkaWire.parse(ours, new RequestHeader(ApiKeys.FETCH, v, "c", 77));
      var p0 = parsed.data().responses().get(0).partitions().get(0);
      assertEquals(3, ((MemoryRecords) p0.records()).batches().iterator().next().countOrNull());
    }
  }

  @Test
  void shouldAnswerWithOneBufferWhenThereAreNoRecords() {
    short v = 18;
    KafkaResponse answer =
        new KafkaResponse(
            5,
            fetch(MemoryRecords.EMPTY, MemoryRecords.EMPTY),
            v,
            ApiKeys.FETCH.responseHeaderVersion(v),
            List.of(),
            false);
    List<Object> parts = answer.encode(ByteBufAllocator.DEFAULT);
    assertEquals(1, parts.size());
    assertArrayEquals(
        kafkaBytes(fetch(MemoryRecords.EMPTY, MemoryRecords.EMPTY), v, 5), KafkaWire.bytes(parts));
  }

  @Test
  void aThrottleReachesEveryBodyWithAThrottleField() {
    // The request quota throttles any API: Metadata carries it as Produce and Fetch do.
    var metadata = new org.apache.kafka.common.message.MetadataResponseData();
    KafkaResponse r =
        new KafkaResponse(5, metadata, (short) 12, (short) 1, List.of(), false).throttled(700);
    assertEquals(700, r.throttleMs());
    assertEquals(700, metadata.throttleTimeMs());
    // A body without one (SaslHandshake) still mutes the connection.
    KafkaResponse sasl =
        new KafkaResponse(
                6,
                new org.apache.kafka.common.message.SaslHandshakeResponseData(),
                (short) 1,
                (short) 0,
                List.of(),
                false)
            .throttled(300);
    assertEquals(300, sasl.throttleMs());
    assertEquals(0, KafkaResponse.none().throttled(0).throttleMs());
  }
}
