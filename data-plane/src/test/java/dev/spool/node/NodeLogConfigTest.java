package dev.spool.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusUtil;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two logging configurations a node runs with by default write size-capped rolling files
 * (docs/operations.md, Logs): {@code spool-node-logback.xml}, which scripts/cluster.sh gives every
 * node it starts, and the release's {@code config/logback.xml}, which bin/spool-node uses. Each is
 * loaded as the launcher loads it, with the properties the launcher sets.
 */
class NodeLogConfigTest {
  private static final String LINE = "x".repeat(200);

  @TempDir Path dir;

  private static LoggerContext configure(URL config, Map<String, String> properties)
      throws Exception {
    LoggerContext ctx = new LoggerContext();
    ctx.setMDCAdapter(new LogbackMDCAdapter()); // what logback's own initialisation sets
    properties.forEach(ctx::putProperty);
    JoranConfigurator jc = new JoranConfigurator();
    jc.setContext(ctx);
    jc.doConfigure(config);
    assertTrue(
        new StatusUtil(ctx).getHighestLevel(0) < Status.ERROR,
        () ->
            "logback reported errors loading "
                + config
                + ": "
                + ctx.getStatusManager().getCopyOfStatusList());
    return ctx;
  }

  private static void assertNoErrors(LoggerContext ctx) {
    assertTrue(
        new StatusUtil(ctx).getHighestLevel(0) < Status.ERROR,
        () -> "logback reported errors: " + ctx.getStatusManager().getCopyOfStatusList());
  }

  private static RollingFileAppender<ILoggingEvent> fileAppender(LoggerContext ctx) {
    var a = ctx.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("FILE");
    assertNotNull(a, "the root logger writes to the FILE appender");
    return (RollingFileAppender<ILoggingEvent>) a;
  }

  @Test
  void theClusterScriptsNodeLogRollsAtItsCapIntoAFixedWindowOfFiveCompressedFiles()
      throws Exception {
    Path log = dir.resolve("node.log");
    URL config = getClass().getClassLoader().getResource("spool-node-logback.xml");
    assertNotNull(config, "spool-node-logback.xml is in the node's jar");
    LoggerContext ctx =
        configure(
            config, Map.of("spool.log.file", log.toString(), "spool.log.max.file.size", "16KB"));
    try {
      RollingFileAppender<ILoggingEvent> a = fileAppender(ctx);
      FixedWindowRollingPolicy rolling = (FixedWindowRollingPolicy) a.getRollingPolicy();
      assertEquals(1, rolling.getMinIndex());
      assertEquals(5, rolling.getMaxIndex(), "at most five rolled files are kept");
      var trigger = (SizeBasedTriggeringPolicy<ILoggingEvent>) a.getTriggeringPolicy();
      assertEquals(16 * 1024, trigger.getMaxFileSize().getSize(), "the cap cluster.sh passes");
      Logger logger = ctx.getLogger("dev.spool.test");
      Path first = dir.resolve("node.log.1.gz");
      // The size is looked at once a second at most: write until the first roll has happened.
      Awaitility.await("node.log rolled")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(50))
          .until(
              () -> {
                for (int i = 0; i < 20; i++) {
                  logger.warn(LINE);
                }
                return Files.exists(first);
              });
      try (InputStream in = new GZIPInputStream(Files.newInputStream(first))) {
        String rolled = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(
            rolled.contains("WARN") && rolled.contains(LINE), "the rolled file holds the log");
        assertTrue(
            rolled.length() >= 16 * 1024, "rolled at the cap, not before: " + rolled.length());
      }
      // The wait stops within 20 lines (about 4.5 KB) of the roll, so the new file is below the
      // cap.
      assertTrue(Files.size(log) < 16 * 1024, "node.log started again: " + Files.size(log));
      assertFalse(ctx.getLogger("io.netty.test").isInfoEnabled(), "Netty logs warnings only");
      assertNoErrors(ctx);
    } finally {
      ctx.stop();
    }
  }

  @Test
  void theReleasesNodeLogIsCappedInSizeAndHistory() throws Exception {
    Path config = Path.of("src/dist/config/logback.xml");
    assertTrue(Files.exists(config), "run from the data-plane module: " + config.toAbsolutePath());
    LoggerContext ctx =
        configure(
            config.toUri().toURL(), Map.of("spool.log.dir", dir.toString(), "spool.node.id", "7"));
    try {
      RollingFileAppender<ILoggingEvent> a = fileAppender(ctx);
      assertEquals(dir.resolve("spool-node-7.log").toString(), a.getFile());
      var rolling = (SizeAndTimeBasedRollingPolicy<ILoggingEvent>) a.getRollingPolicy();
      assertEquals(14, rolling.getMaxHistory());
      ctx.getLogger("dev.spool.test").warn(LINE);
      assertTrue(Files.readString(dir.resolve("spool-node-7.log")).contains(LINE));
      assertNoErrors(ctx);
    } finally {
      ctx.stop();
    }
  }
}
