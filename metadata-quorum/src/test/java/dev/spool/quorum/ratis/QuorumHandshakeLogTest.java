package dev.spool.quorum.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.thirdparty.io.grpc.Attributes;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Refused quorum handshakes leave one line per interval, with the count held back. */
@Tag("unit")
class QuorumHandshakeLogTest {
  @Test
  void shouldLogTheFirstRefusalAndHoldBackTheRestOfTheInterval() {
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    Logger logger = (Logger) LoggerFactory.getLogger(QuorumHandshakeLog.class);
    logger.addAppender(lines);
    try {
      AtomicLong nowNs = new AtomicLong(1_000);
      QuorumHandshakeLog refusals = new QuorumHandshakeLog(7, nowNs::get);
      refusals.transportTerminated(null);
      refusals.transportTerminated(null);
      refusals.transportTerminated(null);
      refusals.transportTerminated(Attributes.EMPTY); // a member's connection ended: no line
      nowNs.addAndGet(TimeUnit.MILLISECONDS.toNanos(RateLimitedLine.INTERVAL_MS));
      refusals.transportTerminated(null);
      List<String> logged = lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
      assertEquals(2, logged.size(), String.valueOf(logged));
      assertTrue(logged.get(0).startsWith("[node=7] the quorum port refused"), logged.get(0));
      assertTrue(logged.get(1).endsWith("2 more held back in the last 5000 ms"), logged.get(1));
    } finally {
      logger.detachAppender(lines);
    }
  }
}
