/**
 * The only package that imports Ratis: the state machine, the server and the client. Keys and
 * reasons for every Ratis setting are in {@code RaftSetup}; what Spool relies on in Ratis and the
 * pitfalls the code guards against are in docs/ratis.md.
 */
package dev.spool.quorum.ratis;
