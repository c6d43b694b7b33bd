package dev.spool.quorum.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import java.io.IOException;
import java.util.concurrent.CompletionException;
import org.apache.ratis.protocol.exceptions.ReconfigurationInProgressException;
import org.apache.ratis.protocol.exceptions.ReconfigurationTimeoutException;
import org.apache.ratis.protocol.exceptions.SetConfigurationException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** How Ratis' refusals of a configuration change reach the operator. */
@Tag("unit")
class RatisQuorumAdminErrorsTest {

  @Test
  void shouldReportACompareAndSetMismatchAsAConcurrentChange() {
    // Ratis 3.3's text for a COMPARE_AND_SET whose current configuration differs
    SpoolException e =
        RatisQuorumAdmin.configurationError(
            new SetConfigurationException(
                "Failed to set configuration: current configuration conf-1 is different than the"
                    + " request req-1"));
    assertEquals(ErrorCode.INVALID_REQUEST, e.errorCode());
    assertEquals(
        "INVALID_REQUEST: the controller quorum's configuration changed concurrently; run describe"
            + " and retry",
        e.getMessage());
  }

  @Test
  void shouldReportAChangeInProgress() {
    SpoolException e =
        RatisQuorumAdmin.configurationError(
            new CompletionException(
                new ReconfigurationInProgressException("Reconfiguration is already in progress")));
    assertEquals(ErrorCode.INVALID_REQUEST, e.errorCode());
    assertTrue(
        e.getMessage().startsWith("INVALID_REQUEST: a configuration change is in progress"),
        e.getMessage());
  }

  @Test
  void shouldReportAStagingTimeoutAsTimedOut() {
    SpoolException e =
        RatisQuorumAdmin.configurationError(
            new ReconfigurationTimeoutException("s0: Fail to set configuration due to TIMEOUT"));
    assertEquals(ErrorCode.REQUEST_TIMED_OUT, e.errorCode());
  }

  @Test
  void shouldReportOtherFailuresAsQuorumUnavailable() {
    SpoolException majority =
        RatisQuorumAdmin.configurationError(
            new SetConfigurationException(
                "Failed to set configuration: request r changes a majority set of the current"
                    + " configuration c"));
    assertEquals(ErrorCode.QUORUM_UNAVAILABLE, majority.errorCode());
    SpoolException io = RatisQuorumAdmin.configurationError(new IOException("connection reset"));
    assertEquals(ErrorCode.QUORUM_UNAVAILABLE, io.errorCode());
    assertTrue(io.getMessage().contains("connection reset"), io.getMessage());
  }
}
