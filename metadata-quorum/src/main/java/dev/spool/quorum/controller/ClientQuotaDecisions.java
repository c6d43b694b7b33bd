package dev.spool.quorum.controller;

import dev.spool.common.ClientQuotaEntity;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.ClientQuotaMessages;
import dev.spool.protocol.message.AlterClientQuotasRequest;
import dev.spool.protocol.message.AlterClientQuotasResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.RecordChecks;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.RecordResult;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * AlterClientQuotas, as Kafka's controller decides it (docs/security.md#quotas): each entry is
 * checked on its own and refused whole (INVALID_REQUEST with the reason, nothing stored) when its
 * entity, a key or a value is bad or a key is named twice; otherwise each operation is one
 * ClientQuotaRecord. validate_only checks and writes nothing. Below metadata.version 6 every entry
 * is refused. Pure: image and request in, decision out.
 */
public final class ClientQuotaDecisions {
  private ClientQuotaDecisions() {}

  public static Decision alter(AlterClientQuotasRequest req, MetadataImage image) {
    AlterClientQuotasResponse.Builder resp = AlterClientQuotasResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    String below = belowLevel(image);
    for (AlterClientQuotasRequest.Entry e : req.getEntriesList()) {
      int item = resp.getResultsCount();
      AlterClientQuotasResponse.Result.Builder r =
          AlterClientQuotasResponse.Result.newBuilder().setEntity(e.getEntity());
      ClientQuotaEntity entity = ClientQuotaMessages.entity(e.getEntity());
      List<MetadataRecord> recs = new ArrayList<>();
      String problem = below != null ? below : entryProblem(entity, e, recs);
      if (problem != null) {
        r.setErrorCode(ErrorCode.INVALID_REQUEST).setErrorMessage(problem);
      } else if (!req.getValidateOnly()) {
        records.addAll(recs, item);
      }
      resp.addResults(r);
    }
    return records.decision(ControllerReply.newBuilder().setAlterClientQuotas(resp).build());
  }

  /** Null when every operation of the entry is legal (its records added to {@code out}). */
  private static String entryProblem(
      ClientQuotaEntity entity, AlterClientQuotasRequest.Entry e, List<MetadataRecord> out) {
    String problem = entity.check();
    if (problem != null) {
      return problem;
    }
    Set<String> keys = new HashSet<>();
    for (AlterClientQuotasRequest.Op op : e.getOpsList()) {
      if (!keys.add(op.getKey())) {
        return "the key " + op.getKey() + " is named twice for " + entity;
      }
      MetadataRecord rec =
          Records.clientQuota(entity, op.getKey(), op.getRemove() ? null : op.getValue());
      RecordResult refused = RecordChecks.check(rec);
      if (refused != null) {
        return refused.getErrorMessage();
      }
      out.add(rec);
    }
    return null;
  }

  private static String belowLevel(MetadataImage image) {
    return image.metadataVersion() >= MetadataVersion.CLIENT_QUOTAS
        ? null
        : "client quotas need metadata.version "
            + MetadataVersion.CLIENT_QUOTAS
            + "; the cluster is at "
            + image.metadataVersion()
            + " (spool features upgrade)";
  }
}
