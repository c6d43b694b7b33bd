package dev.spool.broker.log.internal;

/**
 * Called before each file operation of cleaning and swapping segments (write the cleaned segment,
 * rename it to {@code .swap}, rename the old segments to {@code .deleted}, rename the swap to its
 * final name). Production uses {@link #NONE}; crash tests install one that throws at the N-th step
 * and then reopen the directory, which is what a kill -9 at that point leaves behind.
 *
 * <p>Threads: called on whichever thread performs the step (a cleaner thread or the partition's
 * owner), never concurrently for one partition.
 */
@FunctionalInterface
public interface StepHook {
  StepHook NONE = step -> {};

  /** About to perform {@code step} (a short description for test messages). */
  void before(String step);
}
