/**
 * Faults, planned and applied.
 *
 * <ul>
 *   <li>{@link dev.spool.chaos.nemesis.NemesisSchedule} (pure): from a seed, the enabled {@link
 *       dev.spool.chaos.nemesis.NemesisFamily families} and a duration, a timeline of time-boxed
 *       {@link dev.spool.chaos.nemesis.PlannedFault faults} with quiet periods, abstract {@link
 *       dev.spool.chaos.nemesis.Target targets} (random node, partition leader, active controller,
 *       majority/minority, node pair, client links) and a calm end for final polls.
 *   <li>{@link dev.spool.chaos.nemesis.Nemesis} implementations apply and heal one family each:
 *       {@link dev.spool.chaos.nemesis.ProcessNemesis} (SIGKILL + restart, SIGSTOP/SIGCONT), {@link
 *       dev.spool.chaos.nemesis.PartitionNemesis}, {@link dev.spool.chaos.nemesis.DiskNemesis}
 *       (torn or bit-flipped segment/checkpoint tail while the node is down), {@link
 *       dev.spool.chaos.nemesis.FullRestartNemesis}, {@link
 *       dev.spool.chaos.nemesis.ClientLinkNemesis}.
 *   <li>{@link dev.spool.chaos.nemesis.NemesisRunner} plays a schedule as a duty cycle ({@code
 *       tick(nowNs)}) and records each {@link dev.spool.chaos.nemesis.FaultWindow}.
 * </ul>
 *
 * <p>The harness implements {@link dev.spool.chaos.nemesis.ClusterControl} (processes by PID,
 * leaders, data dirs), {@link dev.spool.chaos.nemesis.NetworkControl} (implemented by {@code
 * dev.spool.chaos.net.NetNamespaces}) and {@link dev.spool.chaos.nemesis.ClientLinkControl}
 * (implemented by {@code dev.spool.chaos.net.ProxyGroup}).
 */
package dev.spool.chaos.nemesis;
