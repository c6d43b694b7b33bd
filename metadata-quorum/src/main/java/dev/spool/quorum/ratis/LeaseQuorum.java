package dev.spool.quorum.ratis;

import java.util.Collection;
import java.util.Map;

/**
 * The majority test behind a controller's leadership lease (docs/architecture.md, "Leadership
 * lease"; docs/ratis.md, "Leadership lease and listeners"), kept free of Ratis so it can be tested
 * without a cluster.
 *
 * <p>Only voters count. Ratis' leader also keeps log appenders, and so contact times, for LISTENERs
 * and staging peers; they cannot vote, so hearing from them says nothing about whether the voters
 * could have elected another leader. During joint consensus a new leader needs a majority of both
 * the old and the new voter sets, so the lease needs a fresh majority of each.
 */
final class LeaseQuorum {
  private LeaseQuorum() {}

  /**
   * Whether {@code self} (the leader) heard within {@code windowMs} from a majority of {@code
   * currentVoters} and, when not empty (joint consensus), of {@code previousVoters}. {@code
   * lastContactMs} maps follower ids (voters, listeners, staging peers alike) to the time since
   * they last answered; the leader counts for a set only when it is in that set.
   */
  static boolean freshMajority(
      String self,
      Collection<String> currentVoters,
      Collection<String> previousVoters,
      Map<String, Long> lastContactMs,
      long windowMs) {
    if (currentVoters.isEmpty()) {
      return false;
    }
    return freshMajorityOf(self, currentVoters, lastContactMs, windowMs)
        && (previousVoters.isEmpty()
            || freshMajorityOf(self, previousVoters, lastContactMs, windowMs));
  }

  private static boolean freshMajorityOf(
      String self, Collection<String> voters, Map<String, Long> lastContactMs, long windowMs) {
    int fresh = 0;
    for (String v : voters) {
      if (v.equals(self)) {
        fresh++;
      } else {
        Long age = lastContactMs.get(v);
        if (age != null && age >= 0 && age < windowMs) {
          fresh++;
        }
      }
    }
    return 2 * fresh > voters.size();
  }
}
