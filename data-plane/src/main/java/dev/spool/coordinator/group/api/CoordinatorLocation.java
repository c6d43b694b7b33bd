package dev.spool.coordinator.group.api;

import dev.spool.common.ErrorCode;

/** FindCoordinator for one group: the broker to ask, or why there is none yet. */
public record CoordinatorLocation(
    String key, ErrorCode error, String message, int nodeId, String host, int port) {}
