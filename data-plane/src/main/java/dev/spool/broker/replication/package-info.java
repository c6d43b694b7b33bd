/**
 * Replication: ISR-style leader/follower replication of partition logs (Kafka's design, with leader
 * epochs, the high watermark and the metadata quorum deciding leaders and ISRs).
 *
 * <h2>Threads</h2>
 *
 * Each partition's log and replica state ({@link dev.spool.broker.replication.Partition}) is
 * changed by exactly one thread: its {@link dev.spool.broker.replication.PartitionWorkers worker}
 * in production, the simulator's single thread in {@code ReplicationSimulation}. Netty threads and
 * the follower fetchers (on the replica network client's I/O thread) only queue tasks. Metadata
 * arrives on the broker lifecycle thread and becomes tasks on the workers ({@link
 * dev.spool.broker.replication.ReplicaManager#applyMetadata}).
 *
 * <h2>Invariants and where they are enforced</h2>
 *
 * <ol>
 *   <li><b>At most one leader per partition and leader epoch.</b> Only the quorum assigns leaders;
 *       a replica leads only in the epoch the metadata gives it ({@code
 *       Partition.applyPartitionState}), ignores older partition states, and refuses to lead in an
 *       epoch older than its log's latest. Produce, fetch, ListOffsets and OffsetForLeaderEpoch
 *       carrying another epoch are fenced (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH) in {@code
 *       Partition.checkLeaderEpoch}.
 *   <li><b>The leader's high watermark never decreases</b> and is the minimum log end offset over
 *       the <em>maximal</em> ISR (committed ISR plus a pending change): {@link
 *       dev.spool.broker.replication.LeaderState#maybeAdvanceHighWatermark}; a follower with no
 *       fetch in the current epoch holds it. {@code Partition.maybeIncrementHighWatermark} takes
 *       the replica OFFLINE rather than lower it.
 *   <li><b>acks=all completes only when the high watermark passes the batch</b> (the partition's
 *       {@link dev.spool.broker.replication.ProducePurgatory}), is refused before appending when
 *       the committed ISR is below min.insync.replicas ({@code Partition.checkProduce}), answers
 *       NOT_ENOUGH_REPLICAS_AFTER_APPEND when the maximal ISR shrank below it meanwhile, and fails
 *       with NOT_LEADER_OR_FOLLOWER as soon as the replica stops leading. Hence a fenced or
 *       partitioned old leader cannot acknowledge: its high watermark needs fetches from ISR
 *       members that now follow the new leader (they fetch with the new epoch and are refused), and
 *       its ISR shrink is refused by the quorum (stale leader or broker epoch) while the pending
 *       shrink keeps counting the old, larger ISR.
 *   <li><b>An ISR change whose outcome is unknown stays pending</b> ({@link
 *       dev.spool.broker.replication.InFlightIsrChange}): a lost answer may hide a committed
 *       expansion, so the maximal ISR keeps counting it until a newer partition state arrives from
 *       metadata or a resend gets a definite answer. One change is in flight at a time.
 *   <li><b>Every record below a leader's high watermark is on every member of its maximal ISR, and
 *       no acknowledged record is ever truncated.</b> Followers truncate only by leader epochs
 *       ({@link dev.spool.broker.replication.Divergence}, applied by {@link
 *       dev.spool.broker.replication.FollowerLog}) or below the leader's log start (retention),
 *       never by the high watermark; a new leader assigns its epoch at its log end offset ({@code
 *       Partition.makeLeader}), so followers cut only what it never had; a follower joins the ISR
 *       only once its log end offset reaches the high watermark and the current epoch's start
 *       offset ({@link dev.spool.broker.replication.LeaderState#proposeExpand}).
 *   <li><b>A follower's log is a prefix of its leader's below the high watermark</b>, and a
 *       follower's high watermark is min(leader high watermark, own log end offset). Answers to a
 *       fetch from an earlier leadership or offset are dropped ({@code
 *       Partition.processFetchResponse}).
 * </ol>
 *
 * The simulation ({@code ReplicationSimulationTest}, tag {@code simulation}) checks these after
 * every step under crashes, restarts, network partitions, message loss and reordering, quorum
 * isolation and leader elections, using the quorum's own decision code.
 *
 * <h2>Choices beyond Kafka's design (docs/architecture.md#replication)</h2>
 *
 * <ul>
 *   <li>Consumers read only from leaders (no follower fetching, KIP-392).
 *   <li>A storage error on a replica takes its whole data directory offline until the broker
 *       restarts, as Kafka's log-dir failure: every replica there goes OFFLINE (waiting produces
 *       fail with STORAGE_ERROR), the heartbeat reports the directory and the controller moves the
 *       leaderships and ISR places away (docs/architecture.md#storage-errors). Unlike Kafka, a
 *       broker whose only directory failed keeps running, holding nothing.
 *   <li>acks=all for a duplicate (idempotent retry) waits, like the original, until the high
 *       watermark passes the original offsets.
 *   <li>A consumer fetch above the high watermark but within the log is answered empty (as Kafka),
 *       not OFFSET_OUT_OF_RANGE.
 * </ul>
 */
package dev.spool.broker.replication;
