package dev.spool.client.internal.producer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Tag("unit")
@Timeout(10)
class BufferPoolTest {
  @Test
  void shouldReusePoolableBuffers() throws Exception {
    BufferPool pool = new BufferPool(4096, 1024);
    ByteBuffer a = pool.allocate(1024, 0);
    a.put((byte) 7);
    pool.deallocate(a, 1024);
    ByteBuffer b = pool.allocate(1024, 0);
    assertSame(a, b);
    assertEquals(0, b.position(), "returned buffers are cleared");
  }

  @Test
  void shouldCountOddSizesAgainstTheBudget() throws Exception {
    BufferPool pool = new BufferPool(4096, 1024);
    pool.allocate(3000, 0);
    assertEquals(1096, pool.availableBytes());
    assertThrows(SpoolException.class, () -> pool.allocate(2000, 0));
  }

  @Test
  void shouldBlockUntilMemoryIsReturned() throws Exception {
    BufferPool pool = new BufferPool(2048, 1024);
    ByteBuffer a = pool.allocate(1024, 0);
    pool.allocate(1024, 0);
    CompletableFuture<ByteBuffer> waiting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return pool.allocate(1024, 10_000);
              } catch (InterruptedException e) {
                throw new RuntimeException(e);
              }
            });
    await().until(() -> pool.queuedWaiters() == 1);
    assertFalse(waiting.isDone());
    pool.deallocate(a, 1024);
    assertSame(a, waiting.join());
  }

  @Test
  void shouldFailWithRetriableTimeoutWhenMemoryStaysExhausted() throws Exception {
    BufferPool pool = new BufferPool(1024, 1024);
    pool.allocate(1024, 0);
    SpoolException e = assertThrows(SpoolException.class, () -> pool.allocate(1024, 50));
    assertEquals(ErrorCode.REQUEST_TIMED_OUT, e.errorCode());
    assertTrue(e.retriable());
    assertTrue(e.getMessage().contains("buffer.memory"));
    assertEquals(0, pool.queuedWaiters());
  }

  @Test
  void shouldWakeWaitersOnClose() throws Exception {
    BufferPool pool = new BufferPool(1024, 1024);
    pool.allocate(1024, 0);
    CompletableFuture<Void> waiting =
        CompletableFuture.runAsync(
            () -> {
              try {
                pool.allocate(1024, 60_000);
              } catch (InterruptedException e) {
                throw new RuntimeException(e);
              }
            });
    await().until(() -> pool.queuedWaiters() == 1);
    pool.close();
    Exception e = assertThrows(Exception.class, waiting::join);
    assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
  }

  @Test
  void shouldRejectRequestsLargerThanTheBudget() {
    BufferPool pool = new BufferPool(1024, 1024);
    assertThrows(IllegalArgumentException.class, () -> pool.allocate(2048, 0));
  }
}
