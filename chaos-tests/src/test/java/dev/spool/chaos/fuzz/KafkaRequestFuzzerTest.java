package dev.spool.chaos.fuzz;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.message.MetadataRequestData;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The fuzzer's mutations, without a listener (the constructor does not connect). */
@Tag("unit")
class KafkaRequestFuzzerTest {
  @Test
  void shouldChangeApiKeysButNeverIntoOnesThatChangeTheCluster() {
    KafkaRequestFuzzer f =
        new KafkaRequestFuzzer(InetSocketAddress.createUnresolved("127.0.0.1", 1), 13L, "t", 1);
    byte[] metadata = KafkaRequestFuzzer.request(new MetadataRequestData(), 12);
    Set<Short> keys = new HashSet<>();
    for (int i = 0; i < 100_000; i++) {
      byte[] m = f.mutate(metadata);
      if (m.length >= 2) {
        short key = ByteBuffer.wrap(m).getShort(0);
        keys.add(key);
        assertFalse(KafkaRequestFuzzer.CLUSTER_CHANGING.contains(key), "key " + key);
      }
    }
    assertTrue(keys.size() > 40, "API keys are still mutated: " + keys.size() + " seen");
  }
}
