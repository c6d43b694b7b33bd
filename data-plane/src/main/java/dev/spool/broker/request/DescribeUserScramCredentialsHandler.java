package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.common.ScramMechanism;
import dev.spool.protocol.message.DescribeUserScramCredentialsRequest;
import dev.spool.protocol.message.DescribeUserScramCredentialsResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeUserScramCredentials from this broker's image: users, their mechanisms and iteration
 * counts, never salts or keys. A named user without a credential is RESOURCE_NOT_FOUND, as Kafka
 * answers. Netty thread.
 */
public final class DescribeUserScramCredentialsHandler
    extends MessageHandler<
        DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse> {
  private final BrokerContext ctx;

  public DescribeUserScramCredentialsHandler(BrokerContext ctx) {
    super(DescribeUserScramCredentialsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<DescribeUserScramCredentialsResponse> call(
      DescribeUserScramCredentialsRequest req, Caller caller) {
    if (!Authz.cluster(ctx, caller, AclOperation.DESCRIBE)) {
      return CompletableFuture.completedFuture(
          DescribeUserScramCredentialsResponse.newBuilder()
              .setErrorCode(Authz.CLUSTER)
              .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.DESCRIBE))
              .build());
    }
    return call(req);
  }

  @Override
  public CompletableFuture<DescribeUserScramCredentialsResponse> call(
      DescribeUserScramCredentialsRequest req) {
    return CompletableFuture.completedFuture(describe(req, ctx.image()));
  }

  static DescribeUserScramCredentialsResponse describe(
      DescribeUserScramCredentialsRequest req, MetadataImage image) {
    Map<String, Map<ScramMechanism, ScramCredentialRecord>> all = image.scramCredentials();
    // Sorted and de-duplicated: a user named many times is answered once.
    TreeSet<String> users =
        new TreeSet<>(req.getUsersCount() == 0 ? all.keySet() : req.getUsersList());
    DescribeUserScramCredentialsResponse.Builder b =
        DescribeUserScramCredentialsResponse.newBuilder();
    for (String user : users) {
      DescribeUserScramCredentialsResponse.Result.Builder r =
          DescribeUserScramCredentialsResponse.Result.newBuilder().setUser(user);
      Map<ScramMechanism, ScramCredentialRecord> creds = all.get(user);
      if (creds == null) {
        r.setErrorCode(ErrorCode.RESOURCE_NOT_FOUND)
            .setErrorMessage("user '" + user + "' has no SCRAM credential");
      } else {
        for (ScramMechanism m : ScramMechanism.values()) {
          ScramCredentialRecord c = creds.get(m);
          if (c != null) {
            r.addCredentials(
                DescribeUserScramCredentialsResponse.CredentialInfo.newBuilder()
                    .setMechanism(m.mechanismName())
                    .setIterations(c.getIterations()));
          }
        }
      }
      b.addResults(r);
    }
    return b.build();
  }
}
