package dev.spool.chaos.nemesis;

import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Which directed links a partition cuts (Jepsen's "grudge": who refuses to hear from whom), per
 * {@link Plane}. Pure.
 */
public final class Grudge {
  /** Packets from {@code from} to {@code to}'s {@code plane} address are dropped. */
  public record Link(int from, int to, Plane plane) {}

  public static final Set<Plane> ALL_PLANES = EnumSet.allOf(Plane.class);

  private Grudge() {}

  /** Every link between the two groups, both directions. */
  public static Set<Link> bothWays(
      Collection<Integer> a, Collection<Integer> b, Set<Plane> planes) {
    Set<Link> links = new LinkedHashSet<>();
    for (int x : a) {
      for (int y : b) {
        if (x != y) {
          for (Plane p : planes) {
            links.add(new Link(x, y, p));
            links.add(new Link(y, x, p));
          }
        }
      }
    }
    return links;
  }

  /** Only {@code from → to}: {@code to} still reaches {@code from}. */
  public static Set<Link> oneWay(int from, int to, Set<Plane> planes) {
    Set<Link> links = new LinkedHashSet<>();
    for (Plane p : planes) {
      links.add(new Link(from, to, p));
    }
    return links;
  }
}
