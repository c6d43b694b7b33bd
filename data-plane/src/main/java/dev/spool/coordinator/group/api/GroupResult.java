package dev.spool.coordinator.group.api;

import dev.spool.common.ErrorCode;

/** The outcome of an operation on one whole group (DeleteGroups). */
public record GroupResult(String groupId, ErrorCode error, String message) {}
