package dev.spool.chaos.checker;

import dev.spool.chaos.history.History;
import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpFunction;
import dev.spool.chaos.history.OpType;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The size of a run at a glance.
 *
 * @param ops every op line (invocations and completions)
 * @param sends send invocations
 * @param sendOk sends acknowledged, i.e. acknowledged writes
 * @param sendFail sends that failed definitely
 * @param sendInfo sends with an indeterminate outcome
 * @param sendIncomplete sends invoked but never completed (the run ended first)
 * @param polls ok polls
 * @param valuesRead records returned by ok polls, counting re-reads
 * @param distinctValuesRead distinct values returned by ok polls
 * @param replicaSnapshots white-box replica snapshots
 * @param epochObservations white-box epoch observations
 */
public record Counts(
    int ops,
    int sends,
    int sendOk,
    int sendFail,
    int sendInfo,
    int sendIncomplete,
    int polls,
    long valuesRead,
    int distinctValuesRead,
    int replicaSnapshots,
    int epochObservations) {

  public static Counts of(History h) {
    int sends = 0;
    int ok = 0;
    int fail = 0;
    int info = 0;
    int polls = 0;
    long read = 0;
    Set<String> distinct = new HashSet<>();
    for (Op op : h.ops()) {
      if (op.f() == OpFunction.SEND) {
        switch (op.type()) {
          case INVOKE -> sends++;
          case OK -> ok++;
          case FAIL -> fail++;
          case INFO -> info++;
        }
      } else if (op.is(OpType.OK, OpFunction.POLL)) {
        polls++;
        for (var e : op.reads().entrySet()) {
          List<?> pairs = e.getValue();
          read += pairs.size();
          e.getValue().forEach(ov -> distinct.add(e.getKey() + "/" + ov.value()));
        }
      }
    }
    return new Counts(
        h.ops().size(),
        sends,
        ok,
        fail,
        info,
        sends - ok - fail - info,
        polls,
        read,
        distinct.size(),
        h.replicaSnapshots().size(),
        h.epochObservations().size());
  }
}
