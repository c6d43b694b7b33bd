/**
 * Authentication of clients, independent of the wire protocol that carries it: the SASL mechanisms'
 * server side (SCRAM-SHA-256/512 of RFC 5802 and RFC 7677, PLAIN of RFC 4616) checking against the
 * SCRAM credentials of the metadata image (docs/security.md#sasl).
 */
package dev.spool.broker.security;
