package dev.spool.chaos.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.RequestHeader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SpoolRequestFuzzerTest {
  private static final InetSocketAddress NOWHERE = new InetSocketAddress("127.0.0.1", 9);

  @Test
  void everyMutantKeepsItsOuterLengthAndNamesNoApiThatChangesTheCluster() throws Exception {
    Set<Integer> keys = new HashSet<>();
    int unreadableHeaders = 0;
    for (long seed = 0; seed < 10; seed++) {
      SpoolRequestFuzzer f = new SpoolRequestFuzzer(NOWHERE, seed, "fuzz", 1000);
      for (int i = 0; i < 20_000; i++) {
        byte[] m = f.nextMutant();
        ByteBuffer b = ByteBuffer.wrap(m);
        assertEquals(m.length - 4, b.getInt(0), "the size field matches the frame");
        assertTrue(SpoolRequestFuzzer.safe(m), "seed " + seed + " mutant " + i);
        int headerLength = b.getInt(4);
        if (headerLength >= 0 && 8L + headerLength <= m.length) {
          try {
            keys.add(RequestHeader.parseFrom(ByteBuffer.wrap(m, 8, headerLength)).getApiKeyValue());
          } catch (InvalidProtocolBufferException e) {
            unreadableHeaders++;
          }
        } else {
          unreadableHeaders++;
        }
      }
    }
    // The key mutation reaches numbers no API has, and headers the broker cannot read at all.
    assertTrue(keys.stream().anyMatch(k -> ApiKey.forNumber(k) == null), String.valueOf(keys));
    assertTrue(keys.contains(ApiKey.PRODUCE_VALUE) && keys.contains(ApiKey.FETCH_VALUE));
    assertTrue(unreadableHeaders > 0);
  }

  @Test
  void safeRefusesAHeaderThatNamesATopicDeletionAndAllowsUnknownNumbers() {
    byte[] delete =
        SpoolRequestFuzzer.frame(
            RequestHeader.newBuilder().setApiKey(ApiKey.DELETE_TOPICS).build().toByteArray(),
            new byte[0],
            new byte[0]);
    assertFalse(SpoolRequestFuzzer.safe(delete));
    byte[] unknown =
        SpoolRequestFuzzer.frame(
            RequestHeader.newBuilder().setApiKeyValue(999).build().toByteArray(),
            new byte[0],
            new byte[0]);
    assertTrue(SpoolRequestFuzzer.safe(unknown));
    assertFalse(SpoolRequestFuzzer.SAFE.contains(ApiKey.CREATE_TOPICS));
    assertFalse(SpoolRequestFuzzer.SAFE.contains(ApiKey.ALTER_PARTITION_REASSIGNMENTS));
  }

  @Test
  void theSameSeedGivesTheSameRequests() {
    SpoolRequestFuzzer a = new SpoolRequestFuzzer(NOWHERE, 13, "fuzz", 1000);
    SpoolRequestFuzzer b = new SpoolRequestFuzzer(NOWHERE, 13, "fuzz", 1000);
    for (int i = 0; i < 1000; i++) {
      assertArrayEquals(a.nextMutant(), b.nextMutant(), "mutant " + i);
    }
  }
}
