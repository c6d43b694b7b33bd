package dev.spool.chaos.checker;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.spool.chaos.nemesis.FaultKind;

/**
 * Where the time of one fault went, from the fault to the first acknowledged write after it ({@link
 * FaultTimelines}): each step in ms after the fault started, null when it did not happen (a pause
 * too short to fence anyone needs no decision; an ISR shrink no new leader). In {@code
 * verdict.json} under {@code timelines}, one object per fault:
 *
 * <pre>
 * faultId            int     the fault's id (as in nemesis.jsonl)
 * kind, label        string  the fault
 * startNs            long    ns since the run started (history time)
 * startMs            long    wall clock, ms since the epoch (node log time)
 * detection          step    the first sign of the fault: a session expired, a leader proposing to
 *                            shrink its ISR, a new active controller (a quorum leader change)
 * decision           step    the active controller committed a new leader or ISR for an affected
 *                            partition
 * takeover           step    the new leader leads in the new epoch (or the leader took the new ISR)
 * clientSwitch       step    the first producer whose metadata names the new leader
 * clientsSwitched    int     producers that learned of it within the fault's horizon
 * lastClientSwitchMs long    when the last of them did
 * firstAck           step    the first acknowledged write after it: on an affected partition after
 *                            the takeover (or decision); without a decision, the end of the fault's
 *                            longest gap without an acknowledged write
 * </pre>
 *
 * A step is {@code {"ms": 1512, "what": "n1: session of broker 2 expired"}}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({
  "faultId",
  "kind",
  "label",
  "startNs",
  "startMs",
  "detection",
  "decision",
  "takeover",
  "clientSwitch",
  "clientsSwitched",
  "lastClientSwitchMs",
  "firstAck"
})
public record FaultTimeline(
    int faultId,
    FaultKind kind,
    String label,
    long startNs,
    long startMs,
    Step detection,
    Step decision,
    Step takeover,
    Step clientSwitch,
    int clientsSwitched,
    Long lastClientSwitchMs,
    Step firstAck) {

  /** One step: ms after the fault started, and what happened, in words. */
  public record Step(long ms, String what) {}

  /** A step for a table: {@code +1512} (ms after the fault started), or {@code -}. */
  public static String cell(Step step) {
    return step == null ? "-" : "+" + step.ms();
  }
}
