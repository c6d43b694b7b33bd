package dev.spool.broker.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.message.AllocateProducerIdsResponse;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class ProducerIdManagerTest {
  private final ArrayDeque<CompletableFuture<AllocateProducerIdsResponse>> asked =
      new ArrayDeque<>();
  private final QuorumClient quorum =
      (QuorumClient)
          Proxy.newProxyInstance(
              getClass().getClassLoader(),
              new Class<?>[] {QuorumClient.class},
              (p, m, a) -> {
                if (m.getName().equals("allocateProducerIds")) {
                  CompletableFuture<AllocateProducerIdsResponse> f = new CompletableFuture<>();
                  asked.add(f);
                  return f;
                }
                return null;
              });

  private static AllocateProducerIdsResponse block(long start, int len) {
    return AllocateProducerIdsResponse.newBuilder()
        .setProducerIdStart(start)
        .setProducerIdLen(len)
        .build();
  }

  @Test
  void shouldHandOutUniqueIdsFromBlocksAndPrefetchTheNext() throws Exception {
    ProducerIdManager m = new ProducerIdManager(1, () -> 7L, quorum, 10);
    CompletableFuture<Long> first = m.nextProducerId();
    assertFalse(first.isDone(), "waits for the first block");
    assertEquals(1, asked.size());
    asked.poll().complete(block(100, 10));
    assertEquals(100L, first.get());
    Set<Long> seen = new HashSet<>(Set.of(100L));
    for (int i = 0; i < 9; i++) {
      assertTrue(seen.add(m.nextProducerId().get()));
    }
    assertEquals(1, asked.size(), "the next block was asked for before this one ran out");
    asked.poll().complete(block(500, 10));
    assertEquals(500L, m.nextProducerId().get());
  }

  @Test
  void shouldFailWaitersWhenTheQuorumRefuses() {
    ProducerIdManager m = new ProducerIdManager(1, () -> 7L, quorum, 10);
    CompletableFuture<Long> f = m.nextProducerId();
    asked
        .poll()
        .complete(
            AllocateProducerIdsResponse.newBuilder()
                .setErrorCode(ErrorCode.STALE_BROKER_EPOCH)
                .setErrorMessage("stale")
                .build());
    ExecutionException e = assertThrows(ExecutionException.class, f::get);
    assertTrue(e.getCause().getMessage().contains("stale"));
  }
}
