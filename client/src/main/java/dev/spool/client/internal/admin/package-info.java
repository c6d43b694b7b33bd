/**
 * Admin requests with retries ({@link dev.spool.client.internal.admin.AdminCalls}). Assumes any
 * broker accepts admin requests and forwards mutations to the metadata quorum, answering
 * NOT_CONTROLLER or QUORUM_UNAVAILABLE (retried) when it cannot; CreateTopics with -1 partitions or
 * replication factor means the server default; DescribeTopics is a Metadata request with {@code
 * include_configs}; a retried CreateTopics may see TOPIC_ALREADY_EXISTS for a topic its first,
 * timed-out attempt created (as in Kafka).
 */
package dev.spool.client.internal.admin;
