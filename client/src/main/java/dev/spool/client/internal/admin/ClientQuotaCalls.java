package dev.spool.client.internal.admin;

import dev.spool.client.internal.admin.AdminCalls.Done;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.protocol.message.AlterClientQuotasRequest;
import dev.spool.protocol.message.AlterClientQuotasResponse;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.DescribeClientQuotasRequest;
import dev.spool.protocol.message.DescribeClientQuotasResponse;
import java.util.concurrent.CompletableFuture;

/**
 * The admin side of client quotas (docs/security.md#quotas): AlterClientQuotas to any broker, which
 * forwards it to the controller, and DescribeClientQuotas from any broker's image. Thread-safe;
 * futures complete on the I/O thread.
 */
public final class ClientQuotaCalls {
  private final AdminCalls calls;
  private final int brokerTimeoutMs;

  public ClientQuotaCalls(AdminCalls calls, int brokerTimeoutMs) {
    this.calls = calls;
    this.brokerTimeoutMs = brokerTimeoutMs;
  }

  public CompletableFuture<AlterClientQuotasResponse> alter(AlterClientQuotasRequest req) {
    AlterClientQuotasRequest timed = req.toBuilder().setTimeoutMs(brokerTimeoutMs).build();
    // Setting or removing a key again is the same change: a retry is safe.
    return calls.call(
        "AlterClientQuotas",
        ApiKey.ALTER_CLIENT_QUOTAS,
        () -> timed,
        r -> new Done<>(r.body(AlterClientQuotasResponse.class)));
  }

  public CompletableFuture<DescribeClientQuotasResponse> describe(DescribeClientQuotasRequest req) {
    return calls.call(
        "DescribeClientQuotas",
        ApiKey.DESCRIBE_CLIENT_QUOTAS,
        () -> req,
        r -> {
          DescribeClientQuotasResponse resp = r.body(DescribeClientQuotasResponse.class);
          if (resp.getErrorCode() != ErrorCode.NONE) {
            return new AdminCalls.Fail<>(
                new SpoolException(resp.getErrorCode(), resp.getErrorMessage()));
          }
          return new Done<>(resp);
        });
  }
}
