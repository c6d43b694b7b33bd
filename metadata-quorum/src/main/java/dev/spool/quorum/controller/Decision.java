package dev.spool.quorum.controller;

import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataEntry;
import dev.spool.quorum.message.MetadataRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * What the active controller decided for one request: the records to commit, the reply as far as it
 * is known before apply, and for each record the reply item it belongs to (see {@code
 * MetadataEntry} in controller.proto). A decision with no records still becomes a log entry when it
 * answers a request, so that a retried request gets the same answer.
 */
public record Decision(MetadataBatch batch, ControllerReply reply, List<Integer> recordItem) {

  public Decision {
    recordItem = List.copyOf(recordItem);
    if (recordItem.size() != batch.getRecordsCount()) {
      throw new IllegalArgumentException("one item index per record");
    }
  }

  public MetadataEntry toEntry() {
    return MetadataEntry.newBuilder()
        .setBatch(batch)
        .setReply(reply)
        .addAllRecordItem(recordItem)
        .build();
  }

  /** Accumulates records with their reply item. */
  static final class Builder {
    private final MetadataBatch.Builder batch = MetadataBatch.newBuilder();
    private final List<Integer> items = new ArrayList<>();

    void add(MetadataRecord r, int item) {
      batch.addRecords(r);
      items.add(item);
    }

    void addAll(List<MetadataRecord> rs, int item) {
      rs.forEach(r -> add(r, item));
    }

    int size() {
      return items.size();
    }

    Decision decision(ControllerReply reply) {
      return new Decision(batch.build(), reply, items);
    }
  }
}
