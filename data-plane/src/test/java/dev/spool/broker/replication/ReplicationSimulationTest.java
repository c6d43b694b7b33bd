package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link ReplicationSimulation} over many seeds. Re-run one seed with {@code
 * -Dspool.sim.seed=N}; change the breadth with {@code -Dspool.sim.seeds} and {@code
 * -Dspool.sim.steps}.
 */
@Tag("simulation")
class ReplicationSimulationTest {
  private static final Logger log = LoggerFactory.getLogger(ReplicationSimulationTest.class);

  @TempDir Path dir;

  @Test
  @Timeout(600)
  void replicationInvariantsHoldUnderCrashesPartitionsAndMessageLoss() throws Exception {
    String one = System.getProperty("spool.sim.seed");
    int seeds = Integer.getInteger("spool.sim.seeds", 50);
    int steps = Integer.getInteger("spool.sim.steps", 2500);
    List<Long> toRun = new ArrayList<>();
    if (one != null) {
      toRun.add(Long.parseLong(one));
    } else {
      for (long s = 1; s <= seeds; s++) {
        toRun.add(s);
      }
    }
    for (long seed : toRun) {
      Path root = Files.createDirectories(dir.resolve("seed-" + seed));
      int brokers = 3 + (int) (seed % 2);
      try (ReplicationSimulation sim = new ReplicationSimulation(seed, root, brokers, 2)) {
        try {
          sim.run(steps);
        } catch (AssertionError | RuntimeException e) {
          log.error("simulation failed: {}", sim.summary());
          fail(
              "seed "
                  + seed
                  + " failed (re-run with -Dspool.sim.seed="
                  + seed
                  + "): "
                  + e.getMessage(),
              e);
        }
        log.info("{}", sim.summary());
      }
    }
  }
}
