package dev.spool.broker.log;

import dev.spool.common.ManualClock;
import java.nio.file.Path;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the partition-log tests share: a temp directory, a manual clock, the log scheduler, and the
 * test's {@link #log}, closed after each test. Test thread only.
 */
abstract class LogFixture {
  @TempDir Path tmp;
  ManualClock clock = new ManualClock(1_700_000_000_000L);
  ScheduledExecutorService scheduler;
  PartitionLog log;

  @BeforeEach
  void startScheduler() {
    scheduler = LogTestSupport.scheduler();
  }

  @AfterEach
  void closeLogAndScheduler() throws Exception {
    if (log != null && !log.isClosed()) {
      log.close();
    }
    scheduler.shutdownNow();
    scheduler.awaitTermination(5, TimeUnit.SECONDS);
  }

  /** The partition in {@link #tmp}, opened as if nothing were known about it. */
  PartitionLog open(LogConfig config) {
    return open(config, LogStartupState.UNKNOWN);
  }

  PartitionLog open(LogConfig config, LogStartupState state) {
    return LogTestSupport.open(tmp, config, state, clock, scheduler);
  }
}
