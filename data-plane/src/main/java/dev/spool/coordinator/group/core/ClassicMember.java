package dev.spool.coordinator.group.core;

import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.Classic;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One member of a {@link ClassicGroup}: what it joined with, what the leader assigned it, and its
 * JoinGroup or SyncGroup while the coordinator holds it back until the rebalance gets there.
 * Mutable; confined to its shard's thread.
 */
final class ClassicMember {
  final String memberId;
  final String instanceId;
  String clientId;
  String clientHost;
  int rebalanceTimeoutMs;
  int sessionTimeoutMs;
  final String protocolType;
  List<Classic.Protocol> protocols;
  byte[] assignment = new byte[0];
  Set<TopicPartition> assignedPartitions = Set.of();

  /** A member that joined and has not had a generation yet: its session can expire meanwhile. */
  boolean isNew;

  /** Its JoinGroup while it waits for the join phase to end; null when it has none in flight. */
  CompletableFuture<Classic.JoinResult> joinFuture;

  /** Its SyncGroup while it waits for the leader's assignment. */
  CompletableFuture<Classic.SyncResult> syncFuture;

  ClassicMember(
      String memberId,
      String instanceId,
      String clientId,
      String clientHost,
      int rebalanceTimeoutMs,
      int sessionTimeoutMs,
      String protocolType,
      List<Classic.Protocol> protocols) {
    this.memberId = memberId;
    this.instanceId = instanceId;
    this.clientId = clientId;
    this.clientHost = clientHost;
    this.rebalanceTimeoutMs = rebalanceTimeoutMs;
    this.sessionTimeoutMs = sessionTimeoutMs;
    this.protocolType = protocolType;
    this.protocols = List.copyOf(protocols);
  }

  /** The same member under a new id (a static member that came back): nothing in flight. */
  ClassicMember withId(String newId) {
    ClassicMember m =
        new ClassicMember(
            newId,
            instanceId,
            clientId,
            clientHost,
            rebalanceTimeoutMs,
            sessionTimeoutMs,
            protocolType,
            protocols);
    m.assignment = assignment;
    m.assignedPartitions = assignedPartitions;
    return m;
  }

  boolean isStatic() {
    return instanceId != null;
  }

  boolean isAwaitingJoin() {
    return joinFuture != null;
  }

  boolean isAwaitingSync() {
    return syncFuture != null;
  }

  /** Kafka's rule: requests held by the coordinator count as heartbeats, except for new members. */
  boolean hasSatisfiedHeartbeat() {
    return !isNew && (isAwaitingJoin() || isAwaitingSync());
  }

  Classic.Protocol protocol(String name) {
    for (Classic.Protocol p : protocols) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    return null;
  }

  /** The member's metadata for protocol {@code name}; empty if it does not support it. */
  byte[] metadata(String name) {
    Classic.Protocol p = protocol(name);
    return p == null ? new byte[0] : p.metadata();
  }

  /** Whether {@code other} names the same protocols with the same metadata, in the same order. */
  boolean matches(List<Classic.Protocol> other) {
    if (other.size() != protocols.size()) {
      return false;
    }
    for (int i = 0; i < other.size(); i++) {
      Classic.Protocol a = protocols.get(i);
      Classic.Protocol b = other.get(i);
      if (!a.name().equals(b.name()) || !Arrays.equals(a.metadata(), b.metadata())) {
        return false;
      }
    }
    return true;
  }
}
