package dev.spool.chaos.nemesis;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/**
 * One fault as it actually happened: a line of {@code nemesis.jsonl}. Where a {@link PlannedFault}
 * names abstract targets, this names the nodes they resolved to when the fault started.
 *
 * <pre>
 * id        int     the planned fault's id
 * kind      string  the {@link FaultKind}
 * targets   array   what was hit, resolved: ["n2"], ["n1","n2 | n3"], ["client links"]
 * startNs   long    ns since run start when the fault took effect
 * endNs     long    when it was healed; -1 if the run ended before heal
 * note      string  anything the nemesis wants a person to know (e.g. the file it corrupted)
 * </pre>
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"id", "kind", "targets", "startNs", "endNs", "note"})
public record FaultWindow(
    int id, FaultKind kind, List<String> targets, long startNs, long endNs, String note) {
  public FaultWindow {
    Objects.requireNonNull(kind, "kind");
    targets = List.copyOf(targets);
  }

  public boolean healed() {
    return endNs >= 0;
  }

  /** The end, or {@code runEndNs} if the fault was never healed. */
  public long endOr(long runEndNs) {
    return healed() ? endNs : runEndNs;
  }

  public String label() {
    return kind.label() + (targets.isEmpty() ? "" : " " + String.join(", ", targets));
  }
}
