package dev.spool.chaos.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Which figures of a secure run make it fail ({@link SecureRun#problems}). */
@Tag("unit")
class SecureRunTest {
  private static Map<String, Long> figures(
      long workloadFailures, long denials, long accepted, long refused) {
    return Map.of(
        "workloadAuthorizationFailures", workloadFailures,
        "workloadDenialsLogged", denials,
        "intruderAttempts", 10L,
        "intruderRefused", refused,
        "intruderAccepted", accepted);
  }

  @Test
  void shouldPassARunWhereSecurityHeld() {
    assertEquals(List.of(), SecureRun.problems(figures(0, 0, 0, 9)));
    assertEquals(List.of(), SecureRun.problems(Map.of("ops", 100L)), "a plain run has no figures");
  }

  @Test
  void shouldFailARefusedWorkloadAnAdmittedIntruderOrAnIntruderNeverRefused() {
    assertTrue(SecureRun.problems(figures(1, 0, 0, 9)).get(0).contains("legitimate requests"));
    assertTrue(SecureRun.problems(figures(0, 2, 0, 9)).get(0).contains("legitimate requests"));
    assertTrue(SecureRun.problems(figures(0, 0, 1, 9)).get(0).contains("let in"));
    assertTrue(SecureRun.problems(figures(0, 0, 0, 0)).get(0).contains("never refused"));
  }
}
