package dev.spool.chaos.run;

import static dev.spool.chaos.run.ChaosScenarioRuns.assertValidAndExercised;
import static dev.spool.chaos.run.ChaosScenarioRuns.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code secure} scenario: leader and controller kills and pauses on a cluster with mutual TLS
 * on the Spool listeners, replication and the quorum, and the authorizer on ({@code
 * ChaosSecurity}). Security must not break failover: the verdict is valid (nothing acknowledged
 * lost, everything read), every fault was applied and healed with writes acknowledged before,
 * during and after them; the workload, holding only its own ACLs, was never refused; and an
 * intruder with a trusted certificate but no ACL was refused in every fault window and never let
 * in, and neither was a client without a certificate (refused at the handshake).
 */
@Tag("chaos")
class SecureChaosTest {
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void shouldKeepSecurityAndLoseNothingUnderProcessFaults() throws Exception {
    ChaosRun.Result r = run("secure", 23);
    assertValidAndExercised(r, Set.of());
    Map<String, Long> c = r.counts();
    String why = "figures " + c + ", report " + r.index() + ", notes " + r.notes();
    assertEquals(0L, c.get("workloadAuthorizationFailures"), why);
    assertEquals(0L, c.get("workloadDenialsLogged"), why);
    assertEquals(0L, c.get("intruderAccepted"), why);
    assertTrue(c.get("intruderRefused") > 0, why);
    assertTrue(c.get("noCertificateRefused") > 0, why);
    assertEquals((long) r.timeline().size(), c.get("faultWindowsWithIntruderRefused"), why);
    assertTrue(r.notes().stream().noneMatch(n -> n.startsWith("SECURITY")), r.notes().toString());
  }
}
