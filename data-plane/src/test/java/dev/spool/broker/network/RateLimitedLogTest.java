package dev.spool.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

@Tag("unit")
class RateLimitedLogTest {
  private final Logger logger = (Logger) LoggerFactory.getLogger("rate-limited-log-test");
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final AtomicLong nowNs = new AtomicLong(1_000);

  @BeforeEach
  void attach() {
    lines.start();
    logger.addAppender(lines);
  }

  @AfterEach
  void detach() {
    logger.detachAppender(lines);
  }

  private List<String> messages() {
    return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  void shouldLogTheBurstThenCountAndReportTheRestInTheNextInterval() {
    RateLimitedLog limited = new RateLimitedLog(logger, 3, 1_000, nowNs::get);
    for (int i = 0; i < 10; i++) {
      limited.warn("bad frame {}", i);
    }
    assertEquals(List.of("bad frame 0", "bad frame 1", "bad frame 2"), messages());
    assertEquals(7, limited.suppressed());

    nowNs.addAndGet(TimeUnit.MILLISECONDS.toNanos(1_000));
    limited.warn("bad frame {}", 10);
    List<String> m = messages();
    assertEquals(5, m.size(), m.toString());
    assertTrue(m.get(3).startsWith("7 more warnings like the next were suppressed"), m.get(3));
    assertEquals("bad frame 10", m.get(4));
    assertEquals(0, limited.suppressed());
  }

  @Test
  void shouldNotReportSuppressionWhenNothingWasSuppressed() {
    RateLimitedLog limited = new RateLimitedLog(logger, 3, 1_000, nowNs::get);
    limited.warn("one");
    nowNs.addAndGet(TimeUnit.SECONDS.toNanos(5));
    limited.warn("two");
    assertEquals(List.of("one", "two"), messages());
  }
}
