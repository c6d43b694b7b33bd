/**
 * The only package that imports Ratis: the state machine, the server and the client. Keys and
 * reasons for every Ratis setting are in {@code RaftSetup}; lifecycle handling follows
 * shared/notes/ratis.md (§4, pitfalls P1–P9).
 */
package dev.spool.quorum.ratis;
