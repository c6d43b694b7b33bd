package dev.spool.broker.request;

import dev.spool.common.ErrorCode;
import dev.spool.common.ScramMechanism;
import dev.spool.protocol.message.AlterUserScramCredentialsRequest;
import dev.spool.protocol.message.AlterUserScramCredentialsResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * AlterUserScramCredentials, forwarded to the quorum as it is (the controller decides and derives
 * the keys; docs/security.md#sasl). The answer waits, bounded by the request's timeout, until this
 * broker's image shows each accepted user's changes, so a login right after, here, sees them. Netty
 * thread.
 */
public final class AlterUserScramCredentialsHandler
    extends MessageHandler<AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse> {
  private final BrokerContext ctx;

  public AlterUserScramCredentialsHandler(BrokerContext ctx) {
    super(AlterUserScramCredentialsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<AlterUserScramCredentialsResponse> call(
      AlterUserScramCredentialsRequest req) {
    return AdminForwarding.forward(
        ctx,
        ctx.quorum().alterUserScramCredentials(req),
        f -> {
          AlterUserScramCredentialsResponse.Builder b =
              AlterUserScramCredentialsResponse.newBuilder();
          users(req)
              .forEach(
                  u ->
                      b.addResults(
                          AlterUserScramCredentialsResponse.Result.newBuilder()
                              .setUser(u)
                              .setErrorCode(f.code())
                              .setErrorMessage(f.message())));
          return b.build();
        },
        false,
        resp -> img -> applied(req, resp, img),
        ctx.adminTimeout(req.getTimeoutMs()));
  }

  private static Set<String> users(AlterUserScramCredentialsRequest req) {
    Set<String> users = new LinkedHashSet<>();
    req.getDeletionsList().forEach(d -> users.add(d.getName()));
    req.getUpsertionsList().forEach(u -> users.add(u.getName()));
    return users;
  }

  /**
   * Every accepted user's changes show in {@code img}: each deleted credential is absent and each
   * upserted one has this request's salt. A later change to the same user that lands before this
   * broker's image shows this one (another client replacing or deleting the credential) is not
   * detected: the answer (the controller's, which says the change was applied) then comes only
   * once the request's timeout has passed.
   */
  private static boolean applied(
      AlterUserScramCredentialsRequest req,
      AlterUserScramCredentialsResponse resp,
      MetadataImage img) {
    Set<String> accepted = new LinkedHashSet<>();
    resp.getResultsList().stream()
        .filter(r -> r.getErrorCode() == ErrorCode.NONE)
        .forEach(r -> accepted.add(r.getUser()));
    for (AlterUserScramCredentialsRequest.Deletion d : req.getDeletionsList()) {
      var m = ScramMechanism.forName(d.getMechanism());
      if (accepted.contains(d.getName())
          && m.isPresent()
          && img.scramCredential(d.getName(), m.get()) != null) {
        return false;
      }
    }
    for (AlterUserScramCredentialsRequest.Upsertion u : req.getUpsertionsList()) {
      var m = ScramMechanism.forName(u.getMechanism());
      if (!accepted.contains(u.getName()) || m.isEmpty()) {
        continue;
      }
      ScramCredentialRecord c = img.scramCredential(u.getName(), m.get());
      if (c == null || !c.getSalt().equals(u.getSalt())) {
        return false;
      }
    }
    return true;
  }
}
