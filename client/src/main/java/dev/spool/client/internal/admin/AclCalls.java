package dev.spool.client.internal.admin;

import dev.spool.client.internal.admin.AdminCalls.Done;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.protocol.message.Acl;
import dev.spool.protocol.message.AclFilter;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.CreateAclsRequest;
import dev.spool.protocol.message.CreateAclsResponse;
import dev.spool.protocol.message.DeleteAclsRequest;
import dev.spool.protocol.message.DeleteAclsResponse;
import dev.spool.protocol.message.DescribeAclsRequest;
import dev.spool.protocol.message.DescribeAclsResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The admin side of ACLs (docs/security.md#acls): CreateAcls and DeleteAcls to any broker, which
 * forwards them to the controller, and DescribeAcls from any broker's image. The answers come back
 * whole, a result per ACL or filter, for the caller to report. Thread-safe; futures complete on the
 * I/O thread.
 */
public final class AclCalls {
  private final AdminCalls calls;
  private final int brokerTimeoutMs;

  public AclCalls(AdminCalls calls, int brokerTimeoutMs) {
    this.calls = calls;
    this.brokerTimeoutMs = brokerTimeoutMs;
  }

  public CompletableFuture<CreateAclsResponse> create(List<Acl> acls) {
    CreateAclsRequest req =
        CreateAclsRequest.newBuilder().addAllCreations(acls).setTimeoutMs(brokerTimeoutMs).build();
    // A retry of a creation that did apply finds the ACL there and answers its id: safe.
    return calls.call(
        "CreateAcls",
        ApiKey.CREATE_ACLS,
        () -> req,
        r -> new Done<>(r.body(CreateAclsResponse.class)));
  }

  public CompletableFuture<DescribeAclsResponse> describe(AclFilter filter) {
    DescribeAclsRequest req = DescribeAclsRequest.newBuilder().setFilter(filter).build();
    return calls.call(
        "DescribeAcls",
        ApiKey.DESCRIBE_ACLS,
        () -> req,
        r -> {
          DescribeAclsResponse resp = r.body(DescribeAclsResponse.class);
          if (resp.getErrorCode() != ErrorCode.NONE) {
            return new AdminCalls.Fail<>(
                new SpoolException(resp.getErrorCode(), resp.getErrorMessage()));
          }
          return new Done<>(resp);
        });
  }

  public CompletableFuture<DeleteAclsResponse> delete(List<AclFilter> filters) {
    DeleteAclsRequest req =
        DeleteAclsRequest.newBuilder().addAllFilters(filters).setTimeoutMs(brokerTimeoutMs).build();
    return calls.call(
        "DeleteAcls",
        ApiKey.DELETE_ACLS,
        () -> req,
        r -> new Done<>(r.body(DeleteAclsResponse.class)));
  }
}
