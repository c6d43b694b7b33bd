package dev.spool.quorum.controller;

import dev.spool.common.ErrorCode;
import dev.spool.common.ScramMechanism;
import dev.spool.protocol.message.AlterUserScramCredentialsRequest;
import dev.spool.protocol.message.AlterUserScramCredentialsResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.RecordChecks;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.MetadataRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * AlterUserScramCredentials, as Kafka's controller decides it: one answer per user, each user's
 * changes all or none. The request carries salted passwords (never passwords); the controller
 * derives StoredKey and ServerKey and logs only those (docs/security.md#sasl). Refused: a user and
 * mechanism named twice (DUPLICATE_RESOURCE), an unknown mechanism (UNSUPPORTED_SASL_MECHANISM), an
 * illegal user name, iteration count, salt or salted password (UNACCEPTABLE_CREDENTIAL), deleting a
 * credential that does not exist (RESOURCE_NOT_FOUND). Pure.
 */
public final class ScramDecisions {
  private ScramDecisions() {}

  /** One change of the request: an upsertion, or a deletion ({@code upsertion} null). */
  private record Change(
      String user, String mechanism, AlterUserScramCredentialsRequest.Upsertion upsertion) {}

  public static Decision alter(AlterUserScramCredentialsRequest req, MetadataImage image) {
    Map<String, List<Change>> byUser = new LinkedHashMap<>();
    for (AlterUserScramCredentialsRequest.Deletion d : req.getDeletionsList()) {
      byUser
          .computeIfAbsent(d.getName(), u -> new ArrayList<>())
          .add(new Change(d.getName(), d.getMechanism(), null));
    }
    for (AlterUserScramCredentialsRequest.Upsertion u : req.getUpsertionsList()) {
      byUser
          .computeIfAbsent(u.getName(), n -> new ArrayList<>())
          .add(new Change(u.getName(), u.getMechanism(), u));
    }
    AlterUserScramCredentialsResponse.Builder resp = AlterUserScramCredentialsResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    for (Map.Entry<String, List<Change>> e : byUser.entrySet()) {
      int item = resp.getResultsCount();
      AlterUserScramCredentialsResponse.Result.Builder r =
          AlterUserScramCredentialsResponse.Result.newBuilder().setUser(e.getKey());
      List<MetadataRecord> userRecords = new ArrayList<>();
      Refusal refusal = decideUser(e.getKey(), e.getValue(), image, userRecords);
      if (refusal != null) {
        r.setErrorCode(refusal.code()).setErrorMessage(refusal.message());
      } else {
        records.addAll(userRecords, item);
      }
      resp.addResults(r);
    }
    return records.decision(
        ControllerReply.newBuilder().setAlterUserScramCredentials(resp).build());
  }

  private record Refusal(ErrorCode code, String message) {}

  private static Refusal decideUser(
      String user, List<Change> changes, MetadataImage image, List<MetadataRecord> out) {
    String problem = RecordChecks.checkUserName(user);
    if (problem != null) {
      return new Refusal(ErrorCode.UNACCEPTABLE_CREDENTIAL, problem);
    }
    Set<String> seen = new HashSet<>();
    for (Change c : changes) {
      if (!seen.add(c.mechanism())) {
        return new Refusal(
            ErrorCode.DUPLICATE_RESOURCE,
            "user '" + user + "' has " + c.mechanism() + " more than once in the request");
      }
    }
    for (Change c : changes) {
      Optional<ScramMechanism> m = ScramMechanism.forName(c.mechanism());
      if (m.isEmpty()) {
        return new Refusal(
            ErrorCode.UNSUPPORTED_SASL_MECHANISM,
            "unknown SCRAM mechanism '" + c.mechanism() + "' (SCRAM-SHA-256, SCRAM-SHA-512)");
      }
      if (c.upsertion() == null) {
        if (image.scramCredential(user, m.get()) == null) {
          return new Refusal(
              ErrorCode.RESOURCE_NOT_FOUND,
              "user '" + user + "' has no " + c.mechanism() + " credential to delete");
        }
        out.add(Records.removeScramCredential(user, m.get()));
        continue;
      }
      AlterUserScramCredentialsRequest.Upsertion u = c.upsertion();
      problem = RecordChecks.checkIterations(u.getIterations());
      if (problem == null && u.getSalt().isEmpty()) {
        problem = "empty salt";
      }
      if (problem == null && u.getSaltedPassword().size() != m.get().hashBytes()) {
        problem =
            "a "
                + c.mechanism()
                + " salted password is "
                + m.get().hashBytes()
                + " bytes, not "
                + u.getSaltedPassword().size();
      }
      if (problem != null) {
        return new Refusal(
            ErrorCode.UNACCEPTABLE_CREDENTIAL,
            "user '" + user + "' " + c.mechanism() + ": " + problem);
      }
      out.add(
          Records.scramCredential(
              user,
              m.get()
                  .credential(
                      u.getSalt().toByteArray(),
                      u.getIterations(),
                      u.getSaltedPassword().toByteArray())));
    }
    for (MetadataRecord rec : out) {
      // The same checks as on replay (salt size and the rest), so the answer says what replay
      // would refuse.
      var refused = RecordChecks.check(rec);
      if (refused != null) {
        return new Refusal(refused.getErrorCode(), refused.getErrorMessage());
      }
    }
    return null;
  }
}
