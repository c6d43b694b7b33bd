package dev.spool.quorum.controller;

import dev.spool.common.AclBinding;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.AclMessages;
import dev.spool.protocol.message.Acl;
import dev.spool.protocol.message.AclFilter;
import dev.spool.protocol.message.CreateAclsRequest;
import dev.spool.protocol.message.CreateAclsResponse;
import dev.spool.protocol.message.DeleteAclsRequest;
import dev.spool.protocol.message.DeleteAclsResponse;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.RecordChecks;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.RecordResult;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * CreateAcls and DeleteAcls, as Kafka's controller decides them (docs/security.md#acls): each
 * creation is checked on its own (INVALID_ACL with the reason, nothing stored for it), an ACL that
 * exists already is answered with its id and not written again; each deletion filter removes every
 * ACL it matches in the image. Below metadata.version 5 both are refused. Pure: image, request and
 * a seeded random for new ids.
 */
public final class AclDecisions {
  private AclDecisions() {}

  public static Decision create(CreateAclsRequest req, MetadataImage image, Random random) {
    CreateAclsResponse.Builder resp = CreateAclsResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    String below = belowLevel(image);
    Map<AclBinding, String> existing = new HashMap<>();
    image.acls().forEach((id, b) -> existing.put(b, id));
    for (Acl a : req.getCreationsList()) {
      int item = resp.getResultsCount();
      CreateAclsResponse.Result.Builder r = CreateAclsResponse.Result.newBuilder();
      AclMessages.Parsed p = AclMessages.parse(a);
      if (below != null) {
        r.setErrorCode(ErrorCode.INVALID_REQUEST).setErrorMessage(below);
      } else if (p.problem() != null) {
        r.setErrorCode(ErrorCode.INVALID_ACL).setErrorMessage(p.problem());
      } else if (existing.containsKey(p.binding())) {
        r.setId(existing.get(p.binding()));
      } else {
        String id = TopicDecisions.newTopicId(random).toString();
        MetadataRecord rec = Records.acl(id, p.binding());
        RecordResult refused = RecordChecks.check(rec);
        if (refused != null) {
          r.setErrorCode(refused.getErrorCode()).setErrorMessage(refused.getErrorMessage());
        } else {
          existing.put(p.binding(), id);
          records.add(rec, item);
          r.setId(id);
        }
      }
      resp.addResults(r);
    }
    return records.decision(ControllerReply.newBuilder().setCreateAcls(resp).build());
  }

  public static Decision delete(DeleteAclsRequest req, MetadataImage image) {
    DeleteAclsResponse.Builder resp = DeleteAclsResponse.newBuilder();
    Decision.Builder records = new Decision.Builder();
    String below = belowLevel(image);
    Set<String> removed = new HashSet<>();
    Map<String, AclBinding> byId = new TreeMap<>(image.acls());
    for (AclFilter f : req.getFiltersList()) {
      int item = resp.getResultsCount();
      DeleteAclsResponse.Result.Builder r = DeleteAclsResponse.Result.newBuilder();
      AclMessages.ParsedFilter p = AclMessages.parse(f);
      if (below != null) {
        r.setErrorCode(ErrorCode.INVALID_REQUEST).setErrorMessage(below);
      } else if (p.problem() != null) {
        r.setErrorCode(ErrorCode.INVALID_ACL).setErrorMessage(p.problem());
      } else {
        for (Map.Entry<String, AclBinding> e : byId.entrySet()) {
          if (p.filter().matches(e.getValue())) {
            r.addMatches(AclMessages.toMessage(e.getKey(), e.getValue()));
            if (removed.add(e.getKey())) {
              records.add(Records.removeAcl(e.getKey()), item);
            }
          }
        }
      }
      resp.addResults(r);
    }
    return records.decision(ControllerReply.newBuilder().setDeleteAcls(resp).build());
  }

  private static String belowLevel(MetadataImage image) {
    return image.metadataVersion() >= MetadataVersion.ACLS
        ? null
        : "ACLs need metadata.version "
            + MetadataVersion.ACLS
            + "; the cluster is at "
            + image.metadataVersion()
            + " (spool features upgrade)";
  }
}
