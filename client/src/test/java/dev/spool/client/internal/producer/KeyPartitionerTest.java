package dev.spool.client.internal.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class KeyPartitionerTest {
  /** The vectors of Kafka's {@code UtilsTest.testMurmur2}. */
  @Test
  void shouldMatchKafkaMurmur2TestVectors() {
    Map<String, Integer> cases =
        Map.of(
            "21", -973932308,
            "foobar", -790332482,
            "a-little-bit-long-string", -985981536,
            "a-little-bit-longer-string", -1486304829,
            "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971,
            "abc", 479470107);
    cases.forEach(
        (key, expected) ->
            assertEquals(
                expected, KeyPartitioner.murmur2(key.getBytes(StandardCharsets.UTF_8)), key));
  }

  @Test
  void shouldPartitionLikeKafkaDefaultPartitioner() {
    // toPositive(-973932308) % 6 = (−973932308 & 0x7fffffff) % 6
    int expected = (-973932308 & 0x7fffffff) % 6;
    assertEquals(expected, KeyPartitioner.partition("21".getBytes(StandardCharsets.UTF_8), 6));
  }

  @Test
  void shouldHashTheEmptyKey() {
    assertEquals(KeyPartitioner.murmur2(new byte[0]), KeyPartitioner.murmur2(new byte[0]));
  }

  @Test
  void shouldMakeMinValuePositive() {
    assertEquals(0, KeyPartitioner.toPositive(Integer.MIN_VALUE));
    assertEquals(Integer.MAX_VALUE, KeyPartitioner.toPositive(-1));
  }
}
