package dev.spool.chaos.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class KafkaRequestFuzzerTest {
  private static final InetSocketAddress NOWHERE = new InetSocketAddress("127.0.0.1", 9);

  @Test
  void noMutantCarriesTheKeyOfAnApiThatChangesTheCluster() {
    Set<Short> keys = new HashSet<>();
    for (long seed = 0; seed < 10; seed++) {
      KafkaRequestFuzzer f = new KafkaRequestFuzzer(NOWHERE, seed, "fuzz", 1000);
      for (int i = 0; i < 20_000; i++) {
        byte[] m = f.nextRequest();
        if (m.length >= 2) {
          short key = ByteBuffer.wrap(m).getShort(0);
          keys.add(key);
          long s = seed;
          int n = i;
          assertFalse(
              KafkaRequestFuzzer.changesCluster(key),
              () -> "seed " + s + " mutant " + n + " has key " + ApiKeys.forId(key));
        }
      }
    }
    // The key mutation itself still reaches keys the seeds do not use, known to Kafka or not.
    assertTrue(keys.contains(ApiKeys.SASL_HANDSHAKE.id), String.valueOf(keys));
    assertTrue(keys.stream().anyMatch(k -> !ApiKeys.hasId(k)), String.valueOf(keys));
  }

  @Test
  void changesClusterKnowsTopicDeletionAndLeavesRecordDeletionAndUnknownKeysAlone() {
    assertTrue(KafkaRequestFuzzer.changesCluster(ApiKeys.DELETE_TOPICS.id));
    assertTrue(KafkaRequestFuzzer.changesCluster(ApiKeys.INCREMENTAL_ALTER_CONFIGS.id));
    assertFalse(KafkaRequestFuzzer.changesCluster(ApiKeys.DELETE_RECORDS.id));
    assertFalse(KafkaRequestFuzzer.changesCluster((short) -1));
    assertFalse(KafkaRequestFuzzer.changesCluster((short) 32_000));
  }

  @Test
  void theSameSeedGivesTheSameRequests() {
    KafkaRequestFuzzer a = new KafkaRequestFuzzer(NOWHERE, 13, "fuzz", 1000);
    KafkaRequestFuzzer b = new KafkaRequestFuzzer(NOWHERE, 13, "fuzz", 1000);
    List<byte[]> first = IntStream.range(0, 1000).mapToObj(i -> a.nextRequest()).toList();
    List<byte[]> second = IntStream.range(0, 1000).mapToObj(i -> b.nextRequest()).toList();
    assertEquals(first.size(), second.size());
    for (int i = 0; i < first.size(); i++) {
      assertArrayEquals(first.get(i), second.get(i), "mutant " + i);
    }
  }
}
