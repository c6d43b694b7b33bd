package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.broker.security.LogSafe;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.common.ScramMechanism;
import dev.spool.protocol.message.AlterUserScramCredentialsRequest;
import dev.spool.protocol.message.AlterUserScramCredentialsResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AlterUserScramCredentials, forwarded to the quorum as it is (the controller decides and derives
 * the keys; docs/security.md#sasl). The answer waits, bounded by the request's timeout, until this
 * broker's image shows each accepted user's changes, so a login right after, here, sees them. Each
 * user's change is one INFO line (the audit trail): who asked (the authenticated principal, else
 * the connection), the user, the mechanisms upserted (with iterations) and deleted, and the
 * outcome; never a salt, salted password or key. Netty thread.
 */
public final class AlterUserScramCredentialsHandler
    extends MessageHandler<AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse> {
  private static final Logger log = LoggerFactory.getLogger(AlterUserScramCredentialsHandler.class);
  private final BrokerContext ctx;

  public AlterUserScramCredentialsHandler(BrokerContext ctx) {
    super(AlterUserScramCredentialsRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<AlterUserScramCredentialsResponse> call(
      AlterUserScramCredentialsRequest req) {
    return call(req, "an unknown caller");
  }

  /** ALTER on the cluster; a refused request is audited like any other change. */
  @Override
  public CompletableFuture<AlterUserScramCredentialsResponse> call(
      AlterUserScramCredentialsRequest req, Caller caller) {
    String who = caller.principal() + " on connection " + caller.connection();
    if (!Authz.cluster(ctx, caller, AclOperation.ALTER)) {
      AlterUserScramCredentialsResponse.Builder b = AlterUserScramCredentialsResponse.newBuilder();
      users(req)
          .forEach(
              u ->
                  b.addResults(
                      AlterUserScramCredentialsResponse.Result.newBuilder()
                          .setUser(u)
                          .setErrorCode(Authz.CLUSTER)
                          .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.ALTER))));
      audit(req, b.build(), null, who);
      return CompletableFuture.completedFuture(b.build());
    }
    return call(req, who);
  }

  /**
   * Serves {@code req} for {@code who} (a principal, or a connection) and logs each user's change.
   */
  public CompletableFuture<AlterUserScramCredentialsResponse> call(
      AlterUserScramCredentialsRequest req, String who) {
    return serve(req).whenComplete((resp, err) -> audit(req, resp, err, who));
  }

  /** One INFO line per user of the request: who changed which mechanisms, and the outcome. */
  static void audit(
      AlterUserScramCredentialsRequest req,
      AlterUserScramCredentialsResponse resp,
      Throwable err,
      String who) {
    for (String user : users(req)) {
      List<String> changes = new ArrayList<>();
      req.getUpsertionsList().stream()
          .filter(u -> u.getName().equals(user))
          .forEach(
              u ->
                  changes.add(
                      "upsert "
                          + LogSafe.quote(u.getMechanism())
                          + " ("
                          + u.getIterations()
                          + " iterations)"));
      req.getDeletionsList().stream()
          .filter(d -> d.getName().equals(user))
          .forEach(d -> changes.add("delete " + LogSafe.quote(d.getMechanism())));
      String outcome =
          err != null
              ? "failed: " + err
              : resp.getResultsList().stream()
                  .filter(r -> r.getUser().equals(user))
                  .findFirst()
                  .map(
                      r ->
                          r.getErrorCode() == ErrorCode.NONE
                              ? "applied"
                              : "refused " + r.getErrorCode())
                  .orElse("no answer");
      log.info(
          "SCRAM credentials of user {} changed by {}: {}; {}",
          LogSafe.quote(user),
          who,
          String.join(", ", changes),
          outcome);
    }
  }

  private CompletableFuture<AlterUserScramCredentialsResponse> serve(
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
   * detected: the answer (the controller's, which says the change was applied) then comes only once
   * the request's timeout has passed.
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
