package dev.spool.chaos.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.nemesis.NemesisFamily;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The command line of scripts/chaos.sh: parsing, usage errors, and a re-run command that repeats
 * the run.
 */
@Tag("unit")
class ChaosMainTest {
  @Test
  void shouldParseTheLongRunOptions() {
    ChaosMain.Args a =
        ChaosMain.Args.parse(
            new String[] {
              "--nodes",
              "5",
              "--duration",
              "30m",
              "--nemesis",
              "kill,pause,partition,disk,restart,latency,flap",
              "--seed",
              "42",
              "--dir",
              "/tmp/x"
            });
    assertEquals(5, a.nodes);
    assertEquals(Duration.ofMinutes(30), a.duration);
    assertEquals(EnumSet.allOf(NemesisFamily.class), a.families);
    assertEquals(42, a.seed);
    assertEquals(
        "scripts/chaos.sh --nodes 5 --duration 1800s --nemesis"
            + " kill,pause,partition,disk,restart,latency,flap --seed 42 --dir /tmp/x",
        a.rerunCommand());
  }

  @Test
  void shouldTakeSecureAsAFlagAndRepeatIt() {
    ChaosMain.Args a =
        ChaosMain.Args.parse(
            new String[] {"--secure", "--scenario", "process", "--seed", "7", "--dir", "/tmp/x"});
    assertTrue(a.secure);
    assertEquals(
        "scripts/chaos.sh --scenario process --seed 7 --secure --dir /tmp/x", a.rerunCommand());
    assertFalse(ChaosMain.Args.parse(new String[] {"--scenario", "process"}).secure);
  }

  @Test
  void shouldRepeatARandomSeedInTheRerunCommand() {
    ChaosMain.Args a = ChaosMain.Args.parse(new String[] {"--scenario", "disk"});
    assertTrue(
        a.rerunCommand().startsWith("scripts/chaos.sh --scenario disk --seed "), a.rerunCommand());
    assertTrue(a.rerunCommand().endsWith(" --seed " + a.seed));
  }

  @Test
  void shouldRefuseBadArgumentsWithUsageStatus() {
    for (String[] bad :
        new String[][] {
          {"--nodes", "2"},
          {"--duration", "soon"},
          {"--nemesis", "flood"},
          {"--scenario", "nope"},
          {"--scenario", "disk", "--nodes", "5"},
          {"--seed"},
          {"--what", "1"}
        }) {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int status =
          ChaosMain.run(
              bad,
              new PrintStream(new ByteArrayOutputStream()),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      assertEquals(ChaosMain.USAGE, status, String.join(" ", bad));
      assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage:"), String.join(" ", bad));
    }
    assertThrows(IllegalArgumentException.class, () -> ChaosMain.Args.duration("5s"));
  }
}
